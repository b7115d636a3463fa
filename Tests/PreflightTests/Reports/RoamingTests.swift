import Foundation
import NIOCore
import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

/// Roaming on loopback: two edges, one behind a relay that delays its media port 20 ms each way
/// (a busy host's own delays, a few hundred milliseconds when every suite runs at once, hit both
/// edges alike: their pings go out together); the test measures both and runs against the near one.
@Suite(.realTime, .serialized) struct RoamingTests {
    /// Runs `body` with a near edge and a far one (40 ms more RTT), both trusting the same key.
    static func withTwoEdges<Result: Sendable>(_ body: @Sendable (LocalEdge, LocalEdge) async throws -> Result) async throws -> Result {
        let secret = LocalEdge.randomSecret()
        let relay = try await ImpairmentRelay.start(
            upstream: Impairment(delay: .milliseconds(20)), downstream: Impairment(delay: .milliseconds(20)), seed: 5)
        defer { relay.stop() }
        guard case .v4(let front) = relay.address else { throw PreflightError(code: .invalidArgument, message: "relay is not IPv4") }
        var far = LocalEdge.configuration(secret: secret)
        far.edgeName = "far"
        far.advertisedAddress = front.host
        far.advertisedMediaPort = relay.address.port
        var nearConfiguration = LocalEdge.configuration(secret: secret)
        nearConfiguration.edgeName = "near"
        let near = nearConfiguration
        return try await LocalEdge.withRunning(configuration: far) { farEdge in
            relay.setTarget(farEdge.addresses.media)
            return try await LocalEdge.withRunning(configuration: near) { nearEdge in
                try await body(nearEdge, farEdge)
            }
        }
    }

    @Test func theNearEdgeIsChosenWithBothRTTsInTheReport() async throws {
        try await Self.withTwoEdges { near, far in
            var options = PreflightOptions(accessToken: try await near.token(), edgeURL: "", duration: .seconds(2))
            // The far one first: order must not decide.
            options.edge = .roaming([far.signalingURL, near.signalingURL])
            let report = try await PreflightTest.run(options: options).result()
            let selection = try #require(report.edgeSelection)
            #expect(report.edge == "near")
            #expect(report.selectedEdge == "roaming")
            #expect(selection.selectedEdge == "near" && selection.selectedUrl == near.signalingURL)
            #expect(selection.candidates.map(\.edge) == ["far", "near"])
            let farRTT = try #require(selection.candidates[0].rtt)
            let nearRTT = try #require(selection.candidates[1].rtt)
            // At least the relay's 2 × 20 ms, in milliseconds; how much a busy host adds is no
            // test's business, but it adds to both.
            #expect(farRTT >= 40 && farRTT < 5000, "far \(farRTT) ms")
            #expect(nearRTT < farRTT, "near \(nearRTT) ms, far \(farRTT) ms")
            // Every ping sent; an answer later than the 1 s wait (a busy host) counts as unanswered.
            #expect(selection.candidates.allSatisfy { $0.pingsSent == 5 && $0.pingsAnswered >= 1 }, "\(selection.candidates)")
            // The report went to the chosen edge.
            #expect(try await near.server.store.report(account: LocalEdge.accountSID, sid: report.callSid) != nil)
        }
    }

    @Test func anUnreachableEdgeIsRecordedAndSkipped() async throws {
        try await LocalEdge.withRunning { edge in
            var options = PreflightOptions(accessToken: try await edge.token(), edgeURL: "", duration: .seconds(1))
            // Port 9 on loopback: nothing listens.
            options.edge = .roaming(["ws://127.0.0.1:9/signaling", edge.signalingURL])
            let report = try await PreflightTest.run(options: options).result()
            let selection = try #require(report.edgeSelection)
            #expect(selection.selectedUrl == edge.signalingURL)
            #expect(selection.candidates[0].rtt == nil && selection.candidates[0].error?.code == PreflightError.Code.initFailed.rawValue)
        }
    }

    @Test func noReachableEdgeFailsWith70801() async throws {
        var options = PreflightOptions(accessToken: "unused", edgeURL: "", duration: .seconds(1), signalingTimeout: .seconds(2))
        options.edge = .roaming(["ws://127.0.0.1:9/signaling", "http://127.0.0.1:9"])
        let test = PreflightTest.run(options: options)
        await #expect(throws: PreflightError.self) { _ = try await test.result() }
        #expect(test.partialReport.error?.code == PreflightError.Code.noEdgeReachable.rawValue)
        options.edge = .roaming([])
        let empty = PreflightTest.run(options: options)
        await #expect(throws: PreflightError.self) { _ = try await empty.result() }
        #expect(empty.partialReport.error?.code == PreflightError.Code.invalidArgument.rawValue)
    }
}
