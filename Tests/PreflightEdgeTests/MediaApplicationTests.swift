import NIOCore
import PreflightCore
import PreflightEdge
import Synchronization
import Testing

/// The test applications on the media service, without sockets (times passed in).
@Suite struct MediaApplicationTests {
    static let client = MediaServiceTests.client

    static func verifiedService(_ application: TestApplication) throws -> MediaService {
        let service = MediaService()
        service.addSession(MediaServiceTests.credentials, application: application)
        _ = service.handle(try MediaServiceTests.check().1, from: client, at: 0)
        #expect(service.isVerified(client))
        return service
    }

    static func rtp(sequence: UInt16, sendMicroseconds: UInt64? = nil) -> ByteBuffer {
        let packet = RTPPacket(
            payloadType: 0, sequenceNumber: sequence, timestamp: UInt32(sequence) * 160, ssrc: 7,
            headerExtension: sendMicroseconds.map { MediaExtension.clientExtension(sendMicroseconds: $0) },
            payload: [0xFF, 0xFF][...])
        return ByteBuffer(bytes: (try? packet.encoded()) ?? [])
    }

    static func echoReport(_ buffer: ByteBuffer?) throws -> EchoReport {
        let bytes = Array(try #require(buffer).readableBytesView)
        return try #require(bytes.withUnsafeBytes { raw in
            (try? RTPHeader(parsing: raw)).flatMap { MediaExtension.echoReport($0, in: raw) }
        })
    }

    @Test func echoCarriesSendTimeAndCountsUplinkLoss() throws {
        let service = try Self.verifiedService(.echo)
        var echoes: [EchoReport] = []
        var edgeSequences: [UInt16] = []
        // Packets 10, 11, 13, 14 (12 lost on the way up), 20 ms apart.
        for (index, sequence) in [10, 11, 13, 14].enumerated() {
            let reply = service.handle(Self.rtp(sequence: UInt16(sequence), sendMicroseconds: 1_000 + UInt64(index) * 20_000), from: Self.client, at: Double(index) * 0.02)
            echoes.append(try Self.echoReport(reply))
            edgeSequences.append(try RTPPacket(decoding: Array(try #require(reply).readableBytesView)).sequenceNumber)
        }
        #expect(echoes.map(\.originalSequence) == [10, 11, 13, 14])
        #expect(echoes.map(\.clientSendMicroseconds) == [1_000, 21_000, 41_000, 61_000])
        #expect(echoes.last?.uplink.expected == 5)
        #expect(echoes.last?.uplink.received == 4)
        // The edge's own stream is gap-free: the downlink's loss is measured apart from the uplink's.
        #expect(zip(edgeSequences, edgeSequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        #expect(service.statistics(localUfrag: "edge")?.expected == 5)
    }

    @Test func recordPlaybackRecordsInsteadOfEchoing() throws {
        let service = try Self.verifiedService(.recordPlayback)
        for sequence in 1...300 {
            #expect(service.handle(Self.rtp(sequence: UInt16(sequence)), from: Self.client, at: Double(sequence) * 0.02) == nil)
        }
        // At most the configuration's 10 s (500 frames) are kept; here all 300.
        #expect(service.statistics(localUfrag: "edge")?.recordedFrames == 300)
        #expect(service.counters.packetsRecorded == 300)
        #expect(service.counters.packetsEchoed == 0)
    }

    /// A session records its own interval's frames (the echo test's 2 s: 100), never more than
    /// the configuration's maximum.
    @Test(arguments: [(100, 100), (250, 250), (10_000, 500)] as [(Int, Int)])
    func aSessionRecordsItsIntervalsFrames(asked: Int, kept: Int) throws {
        let service = MediaService()
        service.addSession(MediaServiceTests.credentials, application: .recordPlayback, recordingFrames: asked)
        _ = service.handle(try MediaServiceTests.check().1, from: Self.client, at: 0)
        for sequence in 1...600 {
            _ = service.handle(Self.rtp(sequence: UInt16(sequence)), from: Self.client, at: Double(sequence) * 0.02)
        }
        #expect(service.statistics(localUfrag: "edge")?.recordedFrames == kept)
    }

    /// A record-playback session tells its owner when its first packet came and when its
    /// recording is full, each once, outside the service's lock: what the owner waits for
    /// instead of asking every 20 ms.
    @Test func aRecordingTellsItsOwnerWhenItStartsAndWhenItIsFull() throws {
        let service = MediaService()
        let told = Mutex<[MediaService.RecordingProgress]>([])
        service.addSession(
            MediaServiceTests.credentials, application: .recordPlayback, recordingFrames: 100,
            onRecording: { progress in
                // Called outside the lock: the service can be asked from here.
                _ = service.statistics(localUfrag: "edge")
                told.withLock { $0.append(progress) }
            })
        _ = service.handle(try MediaServiceTests.check().1, from: Self.client, at: 0)
        for sequence in 1...150 {
            _ = service.handle(Self.rtp(sequence: UInt16(sequence)), from: Self.client, at: Double(sequence) * 0.02)
            // A duplicate records nothing and tells nothing.
            _ = service.handle(Self.rtp(sequence: UInt16(sequence)), from: Self.client, at: Double(sequence) * 0.02)
        }
        #expect(told.withLock { $0 } == [.started, .full])
        #expect(service.statistics(localUfrag: "edge")?.recordedFrames == 100)

        // An echo session is told nothing, whatever it is given.
        let echo = MediaService()
        echo.addSession(MediaServiceTests.credentials, application: .echo, onRecording: { _ in Issue.record("an echo session records nothing") })
        _ = echo.handle(try MediaServiceTests.check().1, from: Self.client, at: 0)
        _ = echo.handle(Self.rtp(sequence: 1), from: Self.client, at: 0.02)
    }

    @Test func senderReportIsAnsweredWithAReportBlock() throws {
        let service = try Self.verifiedService(.echo)
        for sequence in [1, 2, 4] as [UInt16] { _ = service.handle(Self.rtp(sequence: sequence), from: Self.client, at: 0) }
        let ntp = NTPTimestamp(unixTime: 1_700_000_000.25)
        let report = RTCPCompoundPacket([
            .senderReport(RTCPSenderReport(ssrc: 7, ntpTimestamp: ntp, rtpTimestamp: 0, packetCount: 4, octetCount: 8)),
            .sourceDescription(.cname("client", ssrc: 7)),
        ])
        let reply = try #require(service.handle(ByteBuffer(bytes: try report.encoded()), from: Self.client, at: 0.1))
        let answer = try RTCPCompoundPacket(decoding: Array(reply.readableBytesView), strict: true)
        guard case .senderReport(let sender) = answer.packets.first else {
            Issue.record("expected a sender report first (the edge has echoed media), got \(answer.packets)")
            return
        }
        let block = try #require(sender.reportBlocks.first)
        #expect(block.ssrc == 7)
        #expect(block.lastSenderReport == ntp.middle32Bits)
        #expect(block.cumulativeLost == 1)
        #expect(block.extendedHighestSequenceNumber == 4)
        #expect(block.fractionLost == 64)  // 1 of 4 expected: ⌊256/4⌋
        #expect(service.counters.rtcpAnswered == 1)
        // RTT from the block: answered "now", so A − LSR − DLSR is the time since the report (≈ 0 here).
        let rtt = try #require(block.roundTripTime(arrival: ntp))
        #expect(rtt < 1)
    }

    @Test func theEdgeNeverSendsMoreThanItReceives() throws {
        let service = try Self.verifiedService(.echo)
        // RTCP without a sender report is not answered, and spends nothing.
        let receiverOnly = RTCPCompoundPacket([.receiverReport(RTCPReceiverReport(ssrc: 7))])
        #expect(service.handle(ByteBuffer(bytes: try receiverOnly.encoded()), from: Self.client, at: 0) == nil)
        var replies = 0
        for sequence in 1...50 where service.handle(Self.rtp(sequence: UInt16(sequence)), from: Self.client, at: 0.5) != nil {
            replies += 1
        }
        #expect(replies == 50)
        #expect(service.statistics(localUfrag: "edge")?.sent == 50)
    }
}
