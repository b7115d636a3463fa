import NIOCore
import PreflightCore
import Synchronization

extension MediaService {
    /// Accepts checks for a connectivity check's two legs: what arrives on the publish leg (the
    /// call's audio codec and the video test stream, payload type 96) is forwarded to the
    /// subscribe leg's nominated address as that leg's own streams (its SSRCs, gap-free sequence
    /// numbers, the edge's send time), its RTCP answered per stream as a test session's.
    ///
    /// What goes to the subscribe address is charged to the **publish** address's
    /// ``SendBudget``, and only when both addresses share an IP address: the media returns to the
    /// host that sent it, never more than it sent, and never to another host.
    public func addCheckLegs(publish: ICELiteCredentials, subscribe: ICELiteCredentials, format: AudioPayloadFormat = .pcmu) {
        var random = SystemRandomNumberGenerator()
        func session(_ credentials: ICELiteCredentials, check: CheckLeg) -> Session {
            var session = Session(
                credentials: credentials, key: STUNIntegrityKey(Array(credentials.localPassword.utf8)), application: nil, format: format,
                ssrc: random.next(), sequence: random.next())
            session.check = check
            return session
        }
        let publishing = session(publish, check: CheckLeg(subscribe: subscribe.localUfrag, videoSSRC: 0, videoSequence: 0))
        let subscribing = session(subscribe, check: CheckLeg(subscribe: nil, videoSSRC: random.next(), videoSequence: random.next()))
        state.withLock { state in
            state.sessions[publish.localUfrag] = publishing
            state.sessions[subscribe.localUfrag] = subscribing
        }
    }

    /// An RTP packet of a check leg: on the publish leg, counted in its stream's statistics and
    /// forwarded to the subscribe leg; on the subscribe leg, dropped (nothing is expected there).
    func relayCheck(_ bytes: UnsafeRawBufferPointer, from ufrag: String, source: SourceKey, state: inout State, at now: Double) -> MediaOutcome {
        guard var session = state.sessions[ufrag], var leg = session.check, let header = try? RTPHeader(parsing: bytes) else {
            state.counters.droppedMalformed += 1
            return .drop
        }
        let isVideo = header.payloadType == SignalingMessage.ConnectivityCheck.videoPayloadType
        guard let subscribe = leg.subscribe, isVideo || header.payloadType == session.format.payloadType else {
            state.counters.droppedWrongPayloadType += 1
            return .drop
        }
        guard leg.streams[header.ssrc] != nil || leg.streams.count < CheckLeg.maximumStreams else {
            state.counters.droppedWrongPayloadType += 1
            return .drop
        }
        let sendTime = MediaExtension.sendTime(header, in: bytes)
        var stream = leg.streams[header.ssrc] ?? ReceiveStatistics(minSequential: 1)
        _ = stream.record(
            sequenceNumber: header.sequenceNumber,
            rtpTimestamp: sendTime.map { UInt32(truncatingIfNeeded: $0) } ?? header.timestamp, arrival: now,
            clockRate: sendTime == nil ? (isVideo ? VideoTestPacketizer.clockRate : session.format.clockRate) : MediaExtension.sendTimeClockRate)
        leg.streams[header.ssrc] = stream
        session.check = leg
        if session.firstMediaTime == nil { session.firstMediaTime = now }
        state.sessions[ufrag] = session
        guard var other = state.sessions[subscribe], var otherLeg = other.check, let address = other.peer,
            state[verified: address]?.ufrag == subscribe, SourceKey(address)?.host == source.host,
            var budget = state.verified[source]?.budget
        else {
            state.counters.droppedUnbridged += 1
            return .drop
        }
        let sequence = isVideo ? otherLeg.videoSequence : other.sequence
        let packet = RTPPacket(
            marker: header.marker, payloadType: header.payloadType, sequenceNumber: sequence, timestamp: header.timestamp,
            ssrc: isVideo ? otherLeg.videoSSRC : other.ssrc,
            headerExtension: MediaExtension.edgeExtension(sendMicroseconds: Self.microseconds(now)),
            payload: UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange]).map { $0 }[...])
        guard let encoded = try? packet.encoded() else {
            state.counters.droppedMalformed += 1
            return .drop
        }
        guard budget.spend(bytes: encoded.count) else {
            state.counters.droppedOverBudget += 1
            return .drop
        }
        state.verified[source]?.budget = budget
        if isVideo {
            otherLeg.videoSequence &+= 1
            other.check = otherLeg
        } else {
            other.sequence &+= 1
        }
        other.packetsSent += 1
        other.octetsSent += encoded.count
        state.sessions[subscribe] = other
        state.counters.packetsBridged += 1
        return .forward(encoded, to: address)
    }
}
