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
        guard let partner = session.partner, var other = state.sessions[partner.ufrag], let address = other.peer,
            var verified = state[verified: address], verified.ufrag == partner.ufrag
        else {
            state.counters.droppedUnbridged += 1
            return .drop
        }
        let payload = Array(UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange]))
        let stream = (sequence: other.sequence, packets: other.packetsSent, octets: other.octetsSent)
        let outgoing = other.srtpOut
        guard var encoded = other.originate(
            payload, payloadType: header.payloadType, marker: header.marker, at: now,
            timestamp: header.timestamp &+ partner.timestampOffset,
            headerExtension: MediaExtension.edgeExtension(sendMicroseconds: Self.microseconds(now)))
        else {
            state.counters.droppedMalformed += 1
            return .drop
        }
        if var context = other.srtpOut {
            guard let protected = try? context.protectRTP(encoded) else {
                state.counters.droppedMalformed += 1
                return .drop
            }
            encoded = protected
            other.srtpOut = context
        }
        guard verified.budget.spend(bytes: encoded.count) else {
            (other.sequence, other.packetsSent, other.octetsSent) = stream
            other.srtpOut = outgoing
            state.sessions[partner.ufrag] = other
            state.counters.droppedOverBudget += 1
            return .drop
        }
        state.sessions[partner.ufrag] = other
        state[verified: address] = verified
        state.counters.packetsBridged += 1
        return .forward(encoded, to: address)
    }
}
