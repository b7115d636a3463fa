import Foundation
import NIOCore
import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Synchronization
import Testing

/// The userspace impairment relay: its log is the truth of what it did, and a preflight test
/// through it measures that truth.
@Suite(.realTime, .serialized) struct ImpairmentRelayTests {
    /// Sends `count` numbered datagrams through the relay to an echoing socket and collects what
    /// comes back, in arrival order, once all of it is back: every datagram the relay forwarded
    /// reached the server and every copy of an echo it released reached the client.
    static func exchange(relay: ImpairmentRelay, count: Int) async throws -> (atServer: [Int], atClient: [Int]) {
        let server = try await MediaSocket.bind(host: "127.0.0.1")
        let client = try await MediaSocket.bind(host: "127.0.0.1")
        relay.setTarget(try #require(server.localAddress))
        let atServer = Mutex<[Int]>([])
        let atClient = Mutex<[Int]>([])
        let echo = Task {
            for await datagram in server.datagrams {
                let bytes = Array(datagram.data.readableBytesView)
                atServer.withLock { $0.append(Int(bytes[1]) << 8 | Int(bytes[2])) }
                server.send(bytes, to: datagram.source)
            }
        }
        let collect = Task {
            for await datagram in client.datagrams {
                let bytes = Array(datagram.data.readableBytesView)
                atClient.withLock { $0.append(Int(bytes[1]) << 8 | Int(bytes[2])) }
            }
        }
        for index in 0..<count {
            // First byte 0xFF: "other" to the relay's classifier; then a big-endian index.
            client.send([0xFF, UInt8(index >> 8), UInt8(index & 0xFF)], to: relay.address)
            // Paced by the relay itself, 10 ahead at most, so that no socket buffer overflows
            // however long a busy host keeps the relay from reading.
            if index % 10 == 9 {
                let read = await eventually(every: .milliseconds(1)) { relay.log().count(where: { $0.direction == .upstream }) > index - 10 }
                #expect(read, "the relay read \(relay.log().count(where: { $0.direction == .upstream })) of \(index + 1)")
            }
        }
        // Delays and reordering hold copies back a few milliseconds: wait until they landed.
        let landed = await eventually {
            let log = relay.log()
            let forwarded = log.filter { $0.direction == .upstream && !$0.dropped }.count
            let echoes = log.filter { $0.direction == .downstream }
            let copies = echoes.reduce(0) { $0 + $1.releases.count }
            return log.count(where: { $0.direction == .upstream }) == count && atServer.withLock { $0.count } == forwarded
                && echoes.count == forwarded && atClient.withLock { $0.count } == copies
        }
        #expect(landed, "in flight: \(atServer.withLock { $0.count }) at the server, \(atClient.withLock { $0.count }) at the client")
        await server.close()
        await client.close()
        await echo.value
        await collect.value
        return (atServer.withLock { $0 }, atClient.withLock { $0 })
    }

    @Test func logIsTheTruthOfLossDuplicationAndReordering() async throws {
        let relay = try await ImpairmentRelay.start(
            upstream: Impairment(loss: 0.2),
            downstream: Impairment(delay: .milliseconds(2), duplication: 0.1, reordering: 0.2, reorderDelay: .milliseconds(20)),
            seed: 7)
        defer { relay.stop() }
        let (atServer, atClient) = try await Self.exchange(relay: relay, count: 300)
        let log = relay.log()
        let up = log.filter { $0.direction == .upstream }
        let down = log.filter { $0.direction == .downstream }
        #expect(up.count == 300)
        // Exactly the datagrams the log says it forwarded reached the server.
        let forwarded = up.filter { !$0.dropped }.map(\.index)
        #expect(atServer == forwarded)
        let lost = up.count - forwarded.count
        #expect((30...90).contains(lost), "20 % of 300 lost, got \(lost)")
        // Every echo the server sent is logged; the client got each copy the log released.
        #expect(down.count == atServer.count)
        let copies = down.reduce(0) { $0 + $1.releases.count }
        #expect(atClient.count == copies)
        #expect(copies > down.count, "some datagrams were duplicated")
        #expect(zip(atClient, atClient.dropFirst()).contains { $0 > $1 }, "some datagrams were reordered")
        #expect(down.allSatisfy { entry in entry.releases.allSatisfy { $0 - entry.arrival >= .milliseconds(2) } })
    }

    @Test func sameSeedSameDecisions() async throws {
        var patterns: [[Bool]] = []
        for _ in 0..<2 {
            let relay = try await ImpairmentRelay.start(upstream: Impairment(burst: .bursty(meanLoss: 0.1, meanBurst: 3)), seed: 42)
            _ = try await Self.exchange(relay: relay, count: 200)
            patterns.append(relay.log().filter { $0.direction == .upstream }.map(\.dropped))
            relay.stop()
        }
        #expect(patterns[0].count == 200)
        #expect(patterns[0] == patterns[1])
        #expect(patterns[0].contains(true))
    }

    /// A preflight test through the relay reports the loss the relay logged, per direction, and
    /// an RTT that includes the relay's delay.
    @Test func preflightMeasuresWhatTheRelayDid() async throws {
        let relay = try await ImpairmentRelay.start(
            upstream: Impairment(delay: .milliseconds(15), loss: 0.06),
            downstream: Impairment(delay: .milliseconds(15), loss: 0.1), seed: 3)
        defer { relay.stop() }
        guard case .v4(let front) = relay.address else { Issue.record("relay is not IPv4"); return }
        var configuration = LocalEdge.configuration()
        configuration.advertisedAddress = front.host
        configuration.advertisedMediaPort = relay.address.port
        let report = try await LocalEdge.withRunning(configuration: configuration) { edge in
            relay.setTarget(edge.addresses.media)
            let token = try await edge.token(application: .echo)
            let test = PreflightTest.run(options: PreflightOptions(accessToken: token, edgeURL: edge.signalingURL, duration: .seconds(4)))
            return try await test.result()
        }
        let log = relay.log()
        let rtpUp = log.filter { $0.direction == .upstream && $0.kind == .rtp }
        let rtpDown = log.filter { $0.direction == .downstream && $0.kind == .rtp }
        let droppedUp = rtpUp.filter(\.dropped).count
        let droppedDown = rtpDown.filter(\.dropped).count
        let uplink = try #require(report.uplink)
        let downlink = try #require(report.downlink)
        #expect(droppedUp > 0 && droppedDown > 0)
        // The test drains what is in flight before its totals, so they are exact, but for drops
        // after the last packet that got through: no later sequence number reveals those (RFC 3550).
        func trailingDrops(_ entries: [RelayLogEntry]) -> Int {
            entries.reversed().prefix { $0.dropped }.count
        }
        let expectedUp = droppedUp - trailingDrops(rtpUp)
        let expectedDown = droppedDown - trailingDrops(rtpDown)
        #expect(uplink.packetsLost == expectedUp, "uplink lost \(uplink.packetsLost), relay dropped \(expectedUp) before the last delivered packet")
        #expect(downlink.packetsLost == expectedDown, "downlink lost \(downlink.packetsLost), relay dropped \(expectedDown) before the last delivered packet")
        #expect(report.networkStats.rtt.average >= 30, "rtt \(report.networkStats.rtt.average) ms with 2 × 15 ms of delay")
        #expect(report.networkStats.rtt.average < 1000)  // in ms; how much a busy host adds to the 30 is no test's business
    }
}
