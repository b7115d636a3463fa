import NIOCore
import PreflightCore

extension MediaService {
    /// An RTP packet of a verified session: record the uplink, then echo or record it.
    /// - Returns: the echo to send (written out by the caller, straight from the datagram), or
    ///   `nil` when nothing goes back.
    /// - Parameters: session, counters, recordingBytes: the session and the parts of ``State`` it
    ///   changes, passed apart so that the session is changed in place in the dictionary.
    func media(
        _ bytes: UnsafeRawBufferPointer, session: inout Session, counters: inout Counters, recordingBytes: inout Int,
        at now: Double, injected: Double?
    ) -> MediaOutcome? {
        guard let header = try? RTPHeader(parsing: bytes) else {
            counters.droppedMalformed += 1
            return nil
        }
        if session.isProbe {
            if header.payloadType == ProbePacket.payloadType {
                // An uplink probe packet: recorded for the client, never answered.
                guard let (sequence, _) = ProbePacket.decode(header, in: bytes) else {
                    counters.droppedMalformed += 1
                    return nil
                }
                if session.probe?.record(sequence: sequence, arrivalMicroseconds: Self.microseconds(now), bytes: bytes.count) == true {
                    counters.probePacketsReceived += 1
                } else {
                    counters.droppedProbeRecords += 1
                }
                return nil
            }
        }
        if session.clientSSRC != header.ssrc {
            session.clientSSRC = header.ssrc
            session.uplink = ReceiveStatistics(minSequential: 1)
        }
        let sendTime = MediaExtension.sendTime(header, in: bytes)
        // Jitter against the client's send time when it is there (network jitter only, without the
        // sender's pacing noise), else against the RTP timestamp (RFC 3550 §6.4.1 as written).
        let outcome = session.uplink.record(
            sequenceNumber: header.sequenceNumber,
            rtpTimestamp: sendTime.map { UInt32(truncatingIfNeeded: $0) } ?? header.timestamp,
            arrival: now, clockRate: sendTime == nil ? session.format.clockRate : MediaExtension.sendTimeClockRate)
        let isFirst = session.firstMediaTime == nil
        if isFirst { session.firstMediaTime = now }
        switch session.application {
        case .recordPlayback:
            let progress = record(bytes, header: header, outcome: outcome, session: &session, counters: &counters, recordingBytes: &recordingBytes)
                .union(isFirst ? .started : [])
            guard let onRecording = session.onRecording, !progress.isEmpty else { return nil }
            return .notify(onRecording, progress)
        case nil:
            // A bridge leg: ``forward`` sends it on; nothing goes back to the source.
            return nil
        case .echo:
            let sent = injected ?? self.now  // an injected time (tests) sends at that time: hold 0
            let echo = EchoReport(
                originalSequence: header.sequenceNumber,
                holdMicroseconds: UInt32(clamping: Int64(max(0, (sent - now) * 1e6))),
                clientSendMicroseconds: sendTime ?? 0,
                edgeSendMicroseconds: Self.microseconds(sent),
                uplink: UplinkReport(
                    expected: UInt32(clamping: session.uplink.expected), received: UInt32(clamping: session.uplink.received),
                    jitterMicroseconds: UInt32(clamping: Int64(session.uplink.jitterMilliseconds * 1000))))
            let packet = session.originateEcho(
                echo, payloadType: header.payloadType, marker: header.marker, payloadCount: header.payloadRange.count, at: sent)
            return .echo(packet, payload: header.payloadRange)
        }
    }

    /// An RTCP compound packet of a verified session: answer a sender report with a report block.
    func control(
        _ bytes: UnsafeRawBufferPointer, session: inout Session, counters: inout Counters, at now: Double,
        injected: Double?
    ) -> [UInt8]? {
        guard let compound = try? RTCPCompoundPacket(decoding: Array(bytes)) else {
            counters.droppedMalformed += 1
            return nil
        }
        let report = compound.packets.lazy.compactMap { packet -> RTCPSenderReport? in
            if case .senderReport(let report) = packet { return report }
            return nil
        }.first
        guard let report else { return nil }
        // A check's publish leg answers each stream (audio, video) from its own statistics.
        var uplink = session.check?.streams[report.ssrc] ?? session.uplink
        defer {
            if session.check?.streams[report.ssrc] != nil { session.check?.streams[report.ssrc] = uplink } else { session.uplink = uplink }
        }
        var interval = uplink.closeInterval()
        if uplink.expected == 0 { interval.fractionLost = 0 }
        let sent = injected ?? self.now  // an injected time (tests) sends at that time: hold 0
        let block = RTCPReportBlock(
            ssrc: report.ssrc, fractionLost: interval.fractionLost,
            cumulativeLost: Int32(clamping: uplink.lost),
            extendedHighestSequenceNumber: uplink.extendedHighestSequenceNumber,
            // In the stream's RTP units (8 kHz for PCMU, 48 kHz for Opus), as RFC 3550 defines the field.
            interarrivalJitter: UInt32(clamping: Int64(uplink.jitterMilliseconds * Double(session.format.clockRate) / 1000)),
            lastSenderReport: report.ntpTimestamp.middle32Bits,
            delaySinceLastSenderReport: UInt32(clamping: Int64((sent - now) * 65536)))
        let answer: RTCPPacket =
            session.packetsSent > 0
            ? .senderReport(
                RTCPSenderReport(
                    ssrc: session.ssrc, ntpTimestamp: NTPTimestamp(unixTime: 0), rtpTimestamp: Self.rtpTimestamp(sent, clockRate: session.format.clockRate),
                    packetCount: UInt32(truncatingIfNeeded: session.packetsSent),
                    octetCount: UInt32(truncatingIfNeeded: session.octetsSent), reportBlocks: [block]))
            : .receiverReport(RTCPReceiverReport(ssrc: session.ssrc, reportBlocks: [block]))
        let compoundAnswer = RTCPCompoundPacket([answer, .sourceDescription(.cname("preflight-edge", ssrc: session.ssrc))])
        return try? compoundAnswer.encoded()
    }

    /// Records a record-playback session's RTP packet, within its frames and the recording
    /// budgets. - Returns: `.full` when this packet filled the recording.
    private func record(
        _ bytes: UnsafeRawBufferPointer, header: RTPHeader, outcome: ReceiveStatistics.Outcome, session: inout Session,
        counters: inout Counters, recordingBytes: inout Int
    ) -> RecordingProgress {
        guard outcome != .duplicate, !session.recordingClosed, session.recording.count < session.recordingFrameLimit
        else { return [] }
        // One codec a recording: played back, a packet of another type would be noise.
        guard header.payloadType == session.format.payloadType else {
            counters.droppedWrongPayloadType += 1
            return []
        }
        let payload = Array(UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange]))
        // Bytes, not only frames: 250 frames of 2 KB each from every session would hold
        // 500 KB a session; the budgets bound each recording and all of them together.
        guard session.recordingBytes + payload.count <= configuration.maximumRecordingBytes,
            recordingBytes + payload.count <= configuration.maximumTotalRecordingBytes
        else {
            counters.droppedOverRecordingBudget += 1
            return []
        }
        session.recording.append(payload)
        session.recordingBytes += payload.count
        recordingBytes += payload.count
        counters.packetsRecorded += 1
        return session.recording.count == session.recordingFrameLimit ? .full : []
    }
}
