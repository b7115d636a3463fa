import NIOCore
import NIOPosix
import PreflightCore
import PreflightEdge
import Synchronization
import Testing

/// The edge's limits as pure values: per-address send budgets, the rate-limit table, session
/// admissions.
@Suite struct EdgeLimitsTests {
    @Test func aBudgetNeverAllowsMoreDatagramsOrBytesThanReceived() {
        var budget = SendBudget()
        var outcomes: [Bool] = []
        outcomes.append(budget.spend(bytes: 1))  // nothing received, nothing to send
        budget.receive(bytes: 100)
        outcomes.append(budget.spend(bytes: 100 + SendBudget.allowancePerDatagram + 1))  // too big
        outcomes.append(budget.spend(bytes: 100 + SendBudget.allowancePerDatagram))
        outcomes.append(budget.spend(bytes: 1))  // one datagram in, one out
        budget.receive(bytes: 20)
        budget.receive(bytes: 20)
        // 140 bytes and 3 datagrams in, 164 out: 140 + 3·64 − 164 = 168 bytes and 2 datagrams left.
        outcomes.append(budget.spend(bytes: 100))
        outcomes.append(budget.spend(bytes: 69))
        outcomes.append(budget.spend(bytes: 68))
        outcomes.append(budget.spend(bytes: 0))
        #expect(outcomes == [false, false, true, false, true, false, true, false])
        #expect(budget.datagramsSent == 3 && budget.bytesSent == 332)
    }

    @Test func theRateLimiterEvictsIdleSourcesInsteadOfClearing() {
        var limiter = SourceRateLimiter<Int>(rate: 10, burst: 2, capacity: 4)
        // Source 0 spends its burst.
        let burst = (0..<3).map { _ in limiter.allow(0, at: 0) }
        #expect(burst == [true, true, false])
        let others = (1...3).map { limiter.allow($0, at: 0) }
        #expect(others == [true, true, true])
        #expect(limiter.count == 4)
        // Full, and nobody idle: newcomers share one overflow bucket (burst 2), and source 0 is
        // still limited.
        let newcomers = [100, 101, 102].map { limiter.allow($0, at: 0.01) }
        #expect(newcomers == [true, true, false])
        let stillLimited = limiter.allow(0, at: 0.01)
        #expect(!stillLimited)
        #expect(limiter.count == 4)
        // Later sources 1–3 have refilled (0.2 s) and are evicted; source 0 keeps sending, so
        // its bucket is kept, and a newcomer gets its own bucket again.
        let sending = limiter.allow(0, at: 0.95)
        let newcomer = limiter.allow(200, at: 1.0)
        #expect(sending && newcomer)
        #expect(limiter.count == 2)
    }

    @Test func admissionsCountInAllPerAccountAndPerIdentity() throws {
        var admissions = SessionAdmissions(limits: .init(total: 4, perAccount: 3, perIdentity: 2))
        let a1 = try admissions.admit(account: "AC1", identity: "alice")
        _ = try admissions.admit(account: "AC1", identity: "alice")
        do {
            _ = try admissions.admit(account: "AC1", identity: "alice")
            Issue.record("identity over its limit")
        } catch {
            #expect(error.code == .sessionLimitReached)
        }
        _ = try admissions.admit(account: "AC1", identity: "bob")
        do {
            _ = try admissions.admit(account: "AC1", identity: "carol")
            Issue.record("account over its limit")
        } catch {
            #expect(error.code == .sessionLimitReached)
            #expect(error.message.contains("account"))
        }
        _ = try admissions.admit(account: "AC2", identity: "alice")
        do {
            _ = try admissions.admit(account: "AC3", identity: "dave")
            Issue.record("edge over its limit")
        } catch {
            #expect(error.code == .edgeAtCapacity)
        }
        admissions.release(a1)
        admissions.release(a1)
        admissions.release(a1)  // releasing more than was admitted changes nothing
        #expect(admissions.total == 3)
        #expect(admissions.sessions(ofAccount: "AC1") == 2)
        _ = try admissions.admit(account: "AC1", identity: "alice")
    }

    @Test func recordingsAreBoundedInBytes() throws {
        let service = MediaService(configuration: .init(maximumRecordingBytes: 10_000, maximumTotalRecordingBytes: 15_000))
        service.addSession(MediaServiceTests.credentials, application: .recordPlayback)
        _ = service.handle(try MediaServiceTests.check().1, from: MediaServiceTests.client, at: 0)
        for sequence in 1...50 {
            let packet = RTPPacket(payloadType: 0, sequenceNumber: UInt16(sequence), timestamp: 0, ssrc: 7, payload: [UInt8](repeating: 1, count: 1_000)[...])
            _ = service.handle(ByteBuffer(bytes: try packet.encoded()), from: MediaServiceTests.client, at: Double(sequence) * 0.02)
        }
        // 10 frames of 1000 bytes fill the session's 10 000, although 250 frames would be allowed.
        #expect(service.statistics(localUfrag: "edge")?.recordedFrames == 10)
        #expect(service.counters.droppedOverRecordingBudget == 40)
    }

    /// The reviewer's redirect: A records 250 frames; B, who knows the session's credentials,
    /// sends one nominating check and so becomes the peer. Playback must not go to B beyond what
    /// B itself sent.
    @Test func playbackGoesNoFurtherThanThePeersOwnBudget() async throws {
        typealias Datagrams = NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>
        let service = MediaService()
        service.addSession(MediaServiceTests.credentials, application: .recordPlayback)
        let server = try await service.bind(host: "127.0.0.1", port: 0)
        let bSocket = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0) { channel in
            channel.eventLoop.makeCompletedFuture { try Datagrams(wrappingChannelSynchronously: channel) }
        }
        let b = try #require(bSocket.channel.localAddress)
        let a = MediaServiceTests.client
        _ = service.handle(try MediaServiceTests.check().1, from: a, at: 0)
        for sequence in 1...250 {
            _ = service.handle(MediaApplicationTests.rtp(sequence: UInt16(sequence)), from: a, at: Double(sequence) * 0.02)
        }
        #expect(service.statistics(localUfrag: "edge")?.recordedFrames == 250)
        // B's nominating check is answered (to us here, not to B's socket) and moves the peer.
        #expect(service.handle(try MediaServiceTests.check().1, from: b, at: 5.1) != nil)
        #expect(service.peer(localUfrag: "edge") == b)
        // B sends 3 RTP packets of its own: it may receive 3 datagrams, no more.
        for sequence in 251...253 { _ = service.handle(MediaApplicationTests.rtp(sequence: UInt16(sequence)), from: b, at: 5.2) }
        let played = await service.playRecording(localUfrag: "edge", frameInterval: .milliseconds(1))
        #expect(played == 3)
        // Whatever reached B's socket in the next half second (the playback above already ran).
        let received = DatagramCounter()
        try await bSocket.executeThenClose { inbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await _ in inbound { received.count.withLock { $0 += 1 } }
                }
                try await Task.sleep(for: .milliseconds(500))
                group.cancelAll()
            }
        }
        let count = received.count.withLock { $0 }
        #expect(count == 3)
        #expect((service.budget(for: b)?.datagramsSent ?? 99) <= (service.budget(for: b)?.datagramsReceived ?? 0))
        #expect(service.counters.droppedOverBudget >= 1)
        await server.close()
    }
}

/// Datagrams counted by a reader task, read by the test.
final class DatagramCounter: Sendable {
    let count = Mutex(0)
}
