import Foundation
@testable import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

/// A preflight test follows the host's networks (docs/protocol.md, "Network changes"),
/// as calls do: a network that appears and takes the media is in its report's `networkChanges`, and
/// with no network left the test ends with 70902 and a partial report holding the changes. The
/// networks are a test's states over two addresses of the loopback interface (the edge is on
/// loopback, so loopback counts as a network); the lab does it with real interfaces.
@Suite(.realTime, .serialized) struct PreflightTestNetworkTests {
    static let loopback = HostNetwork(interfaceName: "lo", interfaceIndex: 1, type: .loopback, addresses: ["127.0.0.1"])
    static let wired = HostNetwork(interfaceName: "wired-test", interfaceIndex: 1, type: .ethernet, addresses: ["127.0.0.2"])

    @Test func aChangeIsInTheReportAndNoNetworkLeftEndsWith70902() async throws {
        try await LocalEdge.withRunning { edge in
            let (states, feed) = AsyncStream<NetworkSnapshot>.makeStream()
            feed.yield(NetworkSnapshot(networks: [Self.loopback]))
            var options = PreflightOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(60))
            options.networkSource = .states(states)
            let test = PreflightTest.run(options: options)
            var events = test.events().makeAsyncIterator()
            var connected = false
            while let event = await events.next() {
                if case .connected = event {
                    connected = true
                    break
                }
                if case .failed = event { break }
                if case .completed = event { break }
            }
            #expect(connected)
            feed.yield(NetworkSnapshot(networks: [Self.loopback, Self.wired]))
            #expect(await eventually { test.partialReport.networkChanges.count == 1 }, "\(test.partialReport.networkChanges)")
            let moved = try #require(test.partialReport.networkChanges.first)
            #expect(moved.reason == .preferredNetworkAppeared && moved.from == "lo" && moved.to == "wired-test")
            #expect(test.partialReport.selectedIceCandidatePair?.localCandidate.ip == "127.0.0.2")

            // Every network goes: the test ends with 70902, the partial report keeps the changes.
            feed.yield(NetworkSnapshot(networks: []))
            let (error, partial) = try #require(await FailureTests.failure(of: test))
            #expect(error.code == .noNetwork)
            #expect(partial.error?.code == 70902)
            #expect(partial.networkChanges.map(\.reason) == [.preferredNetworkAppeared, .networkLost], "\(partial.networkChanges)")
            #expect(partial.networkChanges.last?.from == "wired-test" && partial.networkChanges.last?.to == nil)
            // The JSON carries them.
            let json = String(decoding: try JSONEncoder().encode(partial), as: UTF8.self)
            #expect(json.contains("\"networkChanges\""))
            #expect(try JSONDecoder().decode(PreflightReport.self, from: Data(json.utf8)).networkChanges == partial.networkChanges)
        }
    }
}

/// The probe and the connectivity check follow the host's networks as the preflight test does:
/// with none left they end with 70902, the change in their result.
@Suite(.realTime, .serialized) struct ProbeAndCheckNetworkTests {
    @Test func aProbeWithNoNetworkLeftEndsWith70902() async throws {
        try await LocalEdge.withRunning { edge in
            let (states, feed) = AsyncStream<NetworkSnapshot>.makeStream()
            feed.yield(NetworkSnapshot(networks: [PreflightTestNetworkTests.loopback]))
            var options = LastmileProbeOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL)
            options.networkSource = .states(states)
            let probe = LastmileProbe(options: options)
            let events = probe.events()
            try probe.start(config: LastmileProbeConfig(expectedUplinkBitrate: 1_000_000, expectedDownlinkBitrate: 2_000_000))
            feed.yield(NetworkSnapshot(networks: []))
            var result: LastmileProbeResult?
            for await event in events {
                if case .lastmileProbeResult(let last) = event { result = last }
            }
            let ended = try #require(result)
            #expect(ended.error?.code == 70902, "\(String(describing: ended.error))")
            #expect(ended.networkChanges?.count == 1, "\(String(describing: ended.networkChanges))")
        }
    }

    @Test func aCheckWithNoNetworkLeftEndsWith70902() async throws {
        try await LocalEdge.withRunning { edge in
            let (states, feed) = AsyncStream<NetworkSnapshot>.makeStream()
            feed.yield(NetworkSnapshot(networks: [PreflightTestNetworkTests.loopback]))
            var options = ConnectivityCheckOptions(accessToken: try await edge.token(), edge: edge.signalingURL, duration: .seconds(30))
            options.networkSource = .states(states)
            let diagnostics = Diagnostics(options: options)
            let started = Task { try await diagnostics.connectivityCheck() }
            feed.yield(NetworkSnapshot(networks: []))
            let result = try await started.value
            #expect(result.errors.map(\.code).contains(70902), "\(result.errors)")
            #expect(result.networkChanges?.isEmpty == false)
            #expect(result.state != .completed)
        }
    }
}
