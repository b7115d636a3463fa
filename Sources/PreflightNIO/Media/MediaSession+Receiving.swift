import NIOCore
@_spi(Testing) import PreflightCore
import Synchronization

extension MediaSession {
    /// An RTP or RTCP datagram from the remote side (its arrival was stamped on the event loop).
    public func receive(_ datagram: Datagram) {
        datagram.data.withUnsafeReadableBytes { receive($0, arrival: datagram.arrival) }
    }

    /// An RTP or RTCP packet from the remote side, with its arrival time.
    public func receive(_ bytes: UnsafeRawBufferPointer, arrival: ContinuousClock.Instant) {
        let kind = PacketKind.classify(bytes)
        guard kind == .rtp || kind == .rtcp else { return }
        // Encrypted media: only what authenticates, once, is read (decrypted).
        let plain = state.withLock { state -> [UInt8]?? in
            guard var protection = state.protection else { return .some(nil) }
            defer { state.protection = protection }
            let packet = Array(bytes)
            guard let plain = try? (kind == .rtp ? protection.receive.unprotectRTP(packet) : protection.receive.unprotectRTCP(packet)) else {
                state.undecryptable += 1
                return nil
            }
            return .some(plain)
        }
        guard case .some(let decrypted) = plain else { return }
        if let decrypted {
            decrypted.withUnsafeBytes { dispatch($0, kind: kind, arrival: arrival) }
        } else {
            dispatch(bytes, kind: kind, arrival: arrival)
        }
    }

    private func dispatch(_ bytes: UnsafeRawBufferPointer, kind: PacketKind, arrival: ContinuousClock.Instant) {
        switch kind {
        case .rtp: receiveRTP(bytes, arrival: arrival)
        case .rtcp: receiveRTCP(Array(bytes), arrival: arrival)
        default: return
        }
    }

    func receiveRTP(_ bytes: UnsafeRawBufferPointer, arrival: ContinuousClock.Instant) {
        guard let header = try? RTPHeader(parsing: bytes) else { return }
        let arrivalMicroseconds = microseconds(arrival)
        let payload = UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange])
        let codec = state.withLock { $0.codec }
        var senderTime = header.timestamp
        var clockRate = codec.format.clockRate
        let echo = MediaExtension.echoReport(header, in: bytes)
        if let echo {
            senderTime = UInt32(truncatingIfNeeded: echo.edgeSendMicroseconds)
            clockRate = MediaExtension.sendTimeClockRate
        } else if let edgeSend = MediaExtension.edgeSendTime(header, in: bytes) {
            senderTime = UInt32(truncatingIfNeeded: edgeSend)
            clockRate = MediaExtension.sendTimeClockRate
        }
        if header.payloadType == TelephoneEvent.defaultPayloadType, let handler = telephoneEvents {
            let reports = state.withLock { state in
                (try? state.dtmf.receive(timestamp: header.timestamp, payload: ArraySlice(payload))) ?? []
            }
            for report in reports { handler(report) }
        }
        // The level is the decoded audio's; a packet not decoded (late, repeated, another
        // type) leaves it as it was.
        var level: Int?
        if header.payloadType == codec.format.payloadType {
            let decoded = decodeInOrder(payload, sequenceNumber: header.sequenceNumber, codec: codec)
            if let audio = decoded.audio { level = AudioLevel.peak(of: audio) }
            if let audioReceived {
                for frame in decoded.concealed { audioReceived(frame) }
                if let audio = decoded.audio { audioReceived(audio) }
            }
        }
        state.withLock { state in
            if let echo {
                let roundTrip = Double(arrivalMicroseconds) - Double(echo.clientSendMicroseconds) - Double(echo.holdMicroseconds)
                state.meter.recordRTT(roundTrip / 1000)
                state.echoRoundTrips += 1
                state.meter.recordEcho(of: echo.originalSequence)
                state.meter.recordUplink(echo.uplink)
            }
            state.meter.recordReceived(
                ssrc: header.ssrc, sequenceNumber: header.sequenceNumber, senderTime: senderTime, clockRate: clockRate,
                arrival: (arrival - origin).inSeconds, bytes: bytes.count, audioLevel: level)
        }
    }

    /// The most lost packets in a row that a codec's concealment fills; a longer gap is a new
    /// talkspurt (or a stream that restarted), not 20 ms losses to paper over.
    static let maximumConcealedFrames = 3

    /// Decodes a fresh packet (newer than every packet decoded so far) after concealing the
    /// frames lost just before it; late and repeated packets are left out, as a jitter buffer
    /// would drop them, so a stateful decoder (Opus) sees its stream in order. Under the
    /// session's lock, so that two sockets delivering at once cannot reorder the decoder's input.
    private func decodeInOrder(
        _ payload: UnsafeRawBufferPointer, sequenceNumber: UInt16, codec: any AudioCodec
    ) -> (concealed: [[Int16]], audio: [Int16]?) {
        state.withLock { state in
            var gap = 0
            if let last = state.lastPlayed {
                let step = Int(Int16(bitPattern: sequenceNumber &- last))
                guard step > 0 else { return ([], nil) }
                gap = step - 1
            }
            state.lastPlayed = sequenceNumber
            var concealed: [[Int16]] = []
            if gap <= Self.maximumConcealedFrames {
                for _ in 0..<gap {
                    guard let frame = codec.concealLoss() else { break }
                    concealed.append(frame)
                }
            }
            return (concealed, codec.decode(payload))
        }
    }

    func receiveRTCP(_ bytes: [UInt8], arrival instant: ContinuousClock.Instant) {
        guard let compound = try? RTCPCompoundPacket(decoding: bytes) else { return }
        let arrival = ntp(instant)
        let clockRate = codec.format.clockRate
        for packet in compound.packets {
            let blocks: [RTCPReportBlock]
            switch packet {
            case .senderReport(let report): blocks = report.reportBlocks
            case .receiverReport(let report): blocks = report.reportBlocks
            default: continue
            }
            for block in blocks where block.ssrc == configuration.ssrc {
                state.withLock { state in
                    // Echoes measure RTT per packet; RTCP's is the measure when nothing is echoed.
                    if state.echoRoundTrips == 0, let rtt = block.roundTripTime(arrival: arrival) { state.meter.recordRTT(rtt) }
                    let expected = Int(block.extendedHighestSequenceNumber) - Int(configuration.firstSequence) + 1
                    guard expected > 0 else { return }
                    state.meter.recordUplink(UplinkReport(
                        expected: UInt32(clamping: expected),
                        received: UInt32(clamping: max(0, expected - Int(block.cumulativeLost))),
                        jitterMicroseconds: UInt32(clamping: Int(block.interarrivalJitter) * 1_000_000 / clockRate)))
                }
            }
        }
    }
}
