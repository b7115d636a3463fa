import NIOCore
import PreflightCore

extension MediaService {
    /// A bridge leg's RTP packet as it came (SRTP when the leg is encrypted): counted for the
    /// leg's RTCP answers, then sent on as a packet of the other leg's stream to that leg's
    /// nominated address, within that address's own budget (what that party sent: a bridge
    /// cannot be used to send more to anyone than they send themselves).
    ///
    /// Written at the end of `arena` in place: decrypted into the buffer's spare room, the
    /// other leg's packet written before it and encrypted where it is, so that a bridged packet
    /// costs no allocation (with the system's libcrypto for SRTP, ``SRTPContext``). A call whose
    /// other party is on another edge goes on through ``forward(_:from:state:at:)``.
    /// - Returns: `.forwarded` with the packet's length (its bytes end at `arena`'s writer
    ///   index), or what the trunk leg or a refusal gives.
    func bridge(
        _ received: UnsafeRawBufferPointer, slot: SessionTable.Slot, state: inout State, at now: Double, arena: inout ByteBuffer
    ) -> MediaOutcome {
        // The packet the other leg gets is at most the received one with a header of ours and a
        // tag; the received one, decrypted, goes after it.
        let room = BridgedPacket.headerSize + SRTPContext.rtpOverhead + 2 * received.count
        var outcome = MediaOutcome.drop
        arena.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { space in
            outcome = bridge(received, slot: slot, state: &state, at: now, into: space)
            if case .forwarded(let length, _) = outcome { return length }
            return 0
        }
        return outcome
    }

    private func bridge(
        _ received: UnsafeRawBufferPointer, slot: SessionTable.Slot, state: inout State, at now: Double,
        into space: UnsafeMutableRawBufferPointer
    ) -> MediaOutcome {
        let scratchStart = BridgedPacket.headerSize + SRTPContext.rtpOverhead + received.count
        let scratch = UnsafeMutableRawBufferPointer(rebasing: space[scratchStart...])
        let packet: UnsafeRawBufferPointer
        do {
            // `nil`: the leg is not encrypted, its packet is used as it came.
            let length = try state.sessions[slot].unprotect(received, into: scratch)
            packet = length.map { UnsafeRawBufferPointer(rebasing: scratch[..<$0]) } ?? received
        } catch {
            state.counters.droppedUndecryptable += 1
            return .drop
        }
        return send(packet, from: slot, state: &state, at: now, into: UnsafeMutableRawBufferPointer(rebasing: space[..<scratchStart]))
    }

    /// A leg's (plain) packet counted and sent on: to the other leg on this edge, written to the
    /// start of `space` (`.forwarded`) once its destination's budget paid for it; to a trunk
    /// leg's peer edge; or dropped.
    private func send(
        _ packet: UnsafeRawBufferPointer, from slot: SessionTable.Slot, state: inout State, at now: Double,
        into space: UnsafeMutableRawBufferPointer
    ) -> MediaOutcome {
        guard let header = Self.receive(packet, leg: &state.sessions[slot], counters: &state.counters, at: now) else { return .drop }
        guard let partner = Self.partnerLink(of: &state.sessions[slot]), state.sessions.contains(partner.slot) else {
            state.counters.droppedUnbridged += 1
            return .drop
        }
        if Self.isTrunk(&state.sessions[partner.slot]) {
            // The other party is on another edge: the call's trunk leg carries it there.
            let ufrag = Self.partnerUfrag(of: &state.sessions[slot])
            return forward(packet, header: header, toTrunk: ufrag, timestampOffset: partner.timestampOffset, state: &state, at: now)
        }
        guard let (key, entry) = Self.destination(of: partner.slot, state: &state) else {
            state.counters.droppedUnbridged += 1
            return .drop
        }
        let payload = UnsafeRawBufferPointer(rebasing: packet[header.payloadRange])
        let size = BridgedPacket.size(payloadCount: payload.count) + (Self.encrypts(&state.sessions[partner.slot]) ? SRTPContext.rtpOverhead : 0)
        guard size <= space.count, state.verified[entry: entry].budget.spend(bytes: size) else {
            state.counters.droppedOverBudget += 1
            return .drop
        }
        let sent = Self.originate(
            payload, header: header, timestamp: header.timestamp &+ partner.timestampOffset, edgeSendMicroseconds: Self.microseconds(now),
            leg: &state.sessions[partner.slot], into: space)
        guard let sent else {
            state.counters.droppedMalformed += 1
            return .drop
        }
        state.counters.packetsBridged += 1
        return .forwarded(length: sent, to: key)
    }

    /// Counts a leg's (plain) RTP packet: its receive statistics, its digits; `nil` when it is
    /// not RTP or not of the call's codec or RFC 4733 events (counted as dropped).
    static func receive(_ bytes: UnsafeRawBufferPointer, leg session: inout Session, counters: inout Counters, at now: Double) -> RTPHeader? {
        guard let header = try? RTPHeader(parsing: bytes) else {
            counters.droppedMalformed += 1
            return nil
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
            counters.droppedWrongPayloadType += 1
            return nil
        }
        if header.payloadType == TelephoneEvent.defaultPayloadType {
            // Digits pass through like audio; the edge notes them for its log.
            let payload = ArraySlice(UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange]))
            for report in (try? session.dtmf.receive(timestamp: header.timestamp, payload: payload)) ?? [] {
                if case .started = report, let digit = report.character, session.digits.count < 256 { session.digits.append(digit) }
            }
            counters.telephoneEventsReceived += 1
        }
        return header
    }

    /// The next packet of `leg`'s own stream carrying `payload`, written to the start of
    /// `destination` and encrypted there when the leg is; the leg's stream moves on only when it
    /// was. - Returns: its length, or `nil` when it could not be protected.
    private static func originate(
        _ payload: UnsafeRawBufferPointer, header: RTPHeader, timestamp: UInt32, edgeSendMicroseconds: UInt64, leg: inout Session,
        into destination: UnsafeMutableRawBufferPointer
    ) -> Int? {
        let packet = BridgedPacket(
            marker: header.marker, payloadType: header.payloadType, sequenceNumber: leg.sequence, timestamp: timestamp, ssrc: leg.ssrc,
            edgeSendMicroseconds: edgeSendMicroseconds)
        guard var length = packet.write(payload: payload, to: destination) else { return nil }
        if leg.isEncrypted {
            guard let protected = try? leg.protect(inPlace: destination, length: length) else { return nil }
            length = protected
        }
        leg.sequence &+= 1
        leg.packetsSent += 1
        leg.octetsSent += payload.count
        return length
    }

    /// Where a bridged packet for the leg in `slot` goes: the key of the leg's nominated address
    /// and its entry in ``State/verified`` (whose budget pays for the packet), found through the
    /// entry the leg last had, checked against the key, and searched only when that one is
    /// stale; `nil` when the address is no longer verified for this leg.
    private static func destination(of slot: SessionTable.Slot, state: inout State) -> (key: SourceKey, entry: Int)? {
        guard let (key, cached) = peerRoute(of: &state.sessions[slot]) else { return nil }
        guard let entry = state.verified.contains(entry: cached, key: key) ? cached : state.verified.entry(forKey: key),
            Self.slot(of: &state.verified[entry: entry]) == slot
        else { return nil }
        if entry != cached { state.sessions[slot].peerEntry = entry }
        return (key, entry)
    }

    // What the bridge reads of a session, without copying it (nor its strings: no reference
    // counting for what every packet reads).
    static func partnerLink(of session: inout Session) -> (slot: SessionTable.Slot, timestampOffset: UInt32)? {
        session.partner.map { ($0.slot, $0.timestampOffset) }
    }
    private static func partnerUfrag(of session: inout Session) -> String { session.partner?.ufrag ?? "" }
    private static func isTrunk(_ session: inout Session) -> Bool { session.trunk != nil }
    private static func encrypts(_ session: inout Session) -> Bool { session.isEncrypted }
    private static func peerRoute(of session: inout Session) -> (SourceKey, Int)? {
        session.peerKey.map { ($0, session.peerEntry) }
    }

    /// A leg's RTP packet as a plain one (decrypted by the trunk leg it came on): counted and
    /// sent on as ``bridge(_:slot:state:at:arena:)`` does, the other leg's packet as an array.
    func forward(_ bytes: UnsafeRawBufferPointer, from ufrag: String, state: inout State, at now: Double) -> MediaOutcome {
        guard let slot = state.sessions.slot(of: ufrag) else { return .drop }
        var packet = [UInt8](repeating: 0, count: BridgedPacket.headerSize + SRTPContext.rtpOverhead + bytes.count)
        let outcome = packet.withUnsafeMutableBytes { space in send(bytes, from: slot, state: &state, at: now, into: space) }
        guard case .forwarded(let length, _) = outcome else { return outcome }
        guard let address = state.sessions[slot].partner.flatMap({ state.sessions[$0.slot].peer }) else {
            state.counters.droppedUnbridged += 1
            return .drop
        }
        return .forward(Array(packet[..<length]), to: address)
    }

    /// A local party's packet for the call's trunk leg `ufrag` (the other party is on another
    /// edge): a hello while the peer edge has not answered, else one datagram for the party's
    /// one while the peer consents.
    private func forward(
        _ bytes: UnsafeRawBufferPointer, header: RTPHeader, toTrunk ufrag: String, timestampOffset: UInt32, state: inout State, at now: Double
    ) -> MediaOutcome {
        guard var other = state.sessions[ufrag], let trunk = other.trunk else {
            state.counters.droppedUnbridged += 1
            return .drop
        }
        if !trunk.isVerified {
            let hello = trunkHello(leg: &other, size: bytes.count, state: &state, at: now)
            state.sessions[ufrag] = other
            return hello
        }
        guard trunk.consents(at: now) else {
            state.counters.droppedOverBudget += 1
            return .drop
        }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange])
        var packet = [UInt8](repeating: 0, count: BridgedPacket.size(payloadCount: payload.count) + SRTPContext.rtpOverhead)
        let sent = packet.withUnsafeMutableBytes { destination in
            Self.originate(
                payload, header: header, timestamp: header.timestamp &+ timestampOffset, edgeSendMicroseconds: Self.microseconds(now),
                leg: &other, into: destination)
        }
        guard let sent else {
            state.counters.droppedMalformed += 1
            return .drop
        }
        state.sessions[ufrag] = other
        state.counters.trunkPacketsSent += 1
        return .forward(Array(packet[..<sent]), to: trunk.peer)
    }
}
