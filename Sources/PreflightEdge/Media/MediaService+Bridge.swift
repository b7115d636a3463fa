import NIOCore
import PreflightCore

extension MediaService {
    /// An RTP packet of a bridge leg: counted for the leg's RTCP answers, then sent on as a
    /// packet of the other leg's stream to that leg's nominated address, within that address's
    /// own budget (what that party sent: a bridge cannot be used to send more to anyone than
    /// they send themselves).
    func forward(_ bytes: UnsafeRawBufferPointer, from ufrag: String, state: inout State, at now: Double) -> MediaOutcome {
        guard var session = state.sessions[ufrag], let header = try? RTPHeader(parsing: bytes) else {
            state.counters.droppedMalformed += 1
            return .drop
        }
        if session.clientSSRC != header.ssrc {
            session.clientSSRC = header.ssrc
            session.uplink = ReceiveStatistics(minSequential: 1)
        }
        let sendTime = MediaExtension.sendTime(header, in: bytes)
        _ = session.uplink.record(
            sequenceNumber: header.sequenceNumber,
            rtpTimestamp: sendTime.map { UInt32(truncatingIfNeeded: $0) } ?? header.timestamp,
            arrival: now, clockRate: sendTime == nil ? session.format.clockRate : MediaExtension.sendTimeClockRate)
        if session.firstMediaTime == nil { session.firstMediaTime = now }
        // Both legs negotiated the same codec: anything else is not passed to the other party.
        guard header.payloadType == session.format.payloadType || header.payloadType == TelephoneEvent.defaultPayloadType else {
            state.sessions[ufrag] = session
            state.counters.droppedWrongPayloadType += 1
            return .drop
        }
        if header.payloadType == TelephoneEvent.defaultPayloadType {
            // Digits pass through like audio; the edge notes them for its log.
            let payload = ArraySlice(UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange]))
            for report in (try? session.dtmf.receive(timestamp: header.timestamp, payload: payload)) ?? [] {
                if case .started = report, let digit = report.character, session.digits.count < 256 { session.digits.append(digit) }
            }
            state.counters.telephoneEventsReceived += 1
        }
        state.sessions[ufrag] = session
        guard let partner = session.partner, var other = state.sessions[partner.ufrag] else {
            state.counters.droppedUnbridged += 1
            return .drop
        }
        if other.trunk != nil {
            // The other party is on another edge: the call's trunk leg carries it there.
            if other.trunk?.isVerified == false {
                let hello = trunkHello(leg: &other, size: bytes.count, state: &state, at: now)
                state.sessions[partner.ufrag] = other
                return hello
            }
            // One datagram for the party's one, while the peer edge consents.
            guard other.trunk?.consents(at: now) == true else {
                state.counters.droppedOverBudget += 1
                return .drop
            }
            guard case (let packet, let leg)? = encode(bytes, header: header, for: other, partner: partner, at: now),
                let peer = leg.trunk?.peer
            else {
                state.counters.droppedMalformed += 1
                return .drop
            }
            state.sessions[partner.ufrag] = leg
            state.counters.trunkPacketsSent += 1
            return .forward(packet, to: peer)
        }
        guard let address = other.peer, var verified = state[verified: address], verified.ufrag == partner.ufrag else {
            state.counters.droppedUnbridged += 1
            return .drop
        }
        guard let (packet, leg) = encode(bytes, header: header, for: other, partner: partner, at: now) else {
            state.counters.droppedMalformed += 1
            return .drop
        }
        guard verified.budget.spend(bytes: packet.count) else {
            state.counters.droppedOverBudget += 1
            return .drop
        }
        state.sessions[partner.ufrag] = leg
        state[verified: address] = verified
        state.counters.packetsBridged += 1
        return .forward(packet, to: address)
    }

    /// The packet `other` sends for a bridged packet: the other leg's own stream (its SSRC, its
    /// next sequence number, the timestamp moved by the leg's offset), encrypted when the leg
    /// is, and the leg as it is once the packet is sent (kept only when it is).
    private func encode(
        _ bytes: UnsafeRawBufferPointer, header: RTPHeader, for other: Session, partner: (ufrag: String, timestampOffset: UInt32),
        at now: Double
    ) -> (packet: [UInt8], leg: Session)? {
        var leg = other
        let payload = Array(UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange]))
        guard var encoded = leg.originate(
            payload, payloadType: header.payloadType, marker: header.marker, at: now,
            timestamp: header.timestamp &+ partner.timestampOffset,
            headerExtension: MediaExtension.edgeExtension(sendMicroseconds: Self.microseconds(now)))
        else { return nil }
        if var context = leg.srtpOut {
            guard let protected = try? context.protectRTP(encoded) else { return nil }
            encoded = protected
            leg.srtpOut = context
        }
        return (encoded, leg)
    }
}
