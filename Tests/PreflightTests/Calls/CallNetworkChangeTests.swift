import Foundation
@testable import Preflight
import PreflightEdge
import PreflightTesting
import Testing

/// A call follows the host's networks (the TVOCall reference's preferred network switch) against
/// a real edge: a more preferred network that appears takes the media without a callback (make
/// before break), its loss moves media back at once with `isReconnecting`/`didReconnect`, each
/// change is an Insights `network-change` and the new candidates reach the edge. The networks
/// are a test's states over two addresses of the loopback interface (the edge is on loopback);
/// the lab's handover scenarios do it with real interfaces (docs/lab.md).
@Suite(.realTime, .serialized) struct CallNetworkChangeTests {
    static let loopback = HostNetwork(interfaceName: "lo", interfaceIndex: 1, type: .loopback, addresses: ["127.0.0.1"])
    static let wired = HostNetwork(interfaceName: "wired-test", interfaceIndex: 1, type: .ethernet, addresses: ["127.0.0.2"])

    /// An echo call whose networks are the test's states, starting on loopback, once connected:
    /// the call, where the next states go, and its callbacks.
    static func connectedCall(
        _ harness: CallHarness, options: CallOptions = CallOptions()
    ) async throws -> (Call, AsyncStream<NetworkSnapshot>.Continuation, CallbackRecorder) {
        let (states, feed) = AsyncStream<NetworkSnapshot>.makeStream()
        feed.yield(NetworkSnapshot(networks: [loopback]))
        var options = options
        options.networkSource = .states(states)
        let recorder = CallbackRecorder()
        let caller = try await harness.connect(to: "echo", callOptions: options, delegate: recorder)
        #expect(await caller.wait(for: .connected))
        return (caller, feed, recorder)
    }

    @Test func aPreferredNetworkTakesTheCallAndItsLossMovesItBack() async throws {
        try await CallHarness.withEdge { harness in
            let (caller, feed, recorder) = try await Self.connectedCall(harness)
            func localIP() -> String? { caller.getStats()?.selectedIceCandidatePair?.localCandidate.ip }
            #expect(localIP() == "127.0.0.1")

            // A wired network appears: media moves to it once its pair is checked, and nothing
            // was lost, so no callback.
            feed.yield(NetworkSnapshot(networks: [Self.loopback, Self.wired]))
            #expect(await eventually { localIP() == "127.0.0.2" }, "media stayed on \(localIP() ?? "nothing")")
            #expect(caller.state == .connected)
            // It goes away: media moves back at once, reported as lost and regained.
            feed.yield(NetworkSnapshot(networks: [Self.loopback]))
            #expect(await eventually { localIP() == "127.0.0.1" && caller.state == .connected }, "media on \(localIP() ?? "nothing")")
            #expect(await caller.sample { _ in true } != nil)
            caller.disconnect()
            #expect(await caller.endingError() == nil)
            await recorder.wait(for: 5)
            let callbacks = recorder.callbacks.filter { !$0.hasPrefix("callDidStartRinging") }
            #expect(callbacks == [
                "callDidConnect", "isReconnectingWithError 53405", "callDidReconnect", "didDisconnectWithError",
            ], "\(callbacks)")

            // The edge has both changes and the new network's candidate.
            let callSid = try #require(caller.sid)
            var events: [CallInsightsTests.EventsBody.Event] = []
            #expect(try await eventually {
                events = try await CallInsightsTests.events(harness, callSid: callSid).body?.events ?? []
                return events.filter { $0.group == "network-information" }.count >= 2
            }, "\(events.map(\.name))")
            let changes = events.filter { $0.group == "network-information" && $0.name == "network-change" }.map(\.payload)
            #expect(changes.count == 2, "\(changes)")
            let appeared = try #require(changes.first)
            #expect(appeared["reason"] == "preferred-network-appeared")
            #expect(appeared["from"] == "lo" && appeared["fromType"] == "LOOPBACK")
            #expect(appeared["to"] == "wired-test" && appeared["toType"] == "ETHERNET")
            #expect(appeared["gap"] == "0", "the old path worked until the new one took over: \(appeared)")
            let lost = try #require(changes.last)
            #expect(lost["reason"] == "network-lost")
            #expect(lost["from"] == "wired-test" && lost["to"] == "lo")
            #expect(Int(lost["gap"] ?? "") != nil)
            let trickled = events.filter { $0.payload["trickled"] == "true" }
            #expect(trickled.map { $0.payload["ip"] } == ["127.0.0.2"], "\(trickled)")
        }
    }

    @Test func aNetworkThatDoesNotWinLeavesTheCallWhereItIs() async throws {
        try await CallHarness.withEdge { harness in
            let (caller, feed, _) = try await Self.connectedCall(harness)
            // A cellular network: less preferred than loopback, so media stays.
            let cellular = HostNetwork(interfaceName: "cell-test", interfaceIndex: 1, type: .cellular, addresses: ["127.0.0.3"])
            feed.yield(NetworkSnapshot(networks: [Self.loopback, cellular]))
            let callSid = try #require(caller.sid)
            var changes: [[String: String]] = []
            #expect(try await eventually {
                changes = (try await CallInsightsTests.events(harness, callSid: callSid).body?.events ?? [])
                    .filter { $0.group == "network-information" }.map(\.payload)
                return !changes.isEmpty
            })
            #expect(changes.first?["reason"] == "network-appeared")
            #expect(changes.first?["from"] == "lo" && changes.first?["to"] == "lo", "\(changes)")
            #expect(caller.getStats()?.selectedIceCandidatePair?.localCandidate.ip == "127.0.0.1")
            caller.disconnect()
            #expect(await caller.endingError() == nil)
        }
    }

    /// The network the signaling connection left by goes away: the connection is dropped at once
    /// and the session resumed on a new one (here loopback again: the routing table's choice),
    /// while media moves to the network left; the call goes on.
    @Test func theSignalingConnectionMovesWhenItsNetworkGoes() async throws {
        try await CallHarness.withEdge { harness in
            let (caller, feed, recorder) = try await Self.connectedCall(harness)
            // The wired network appears and takes the media; then loopback (the signaling
            // connection's 127.0.0.1) goes, and only the signaling is lost.
            feed.yield(NetworkSnapshot(networks: [Self.loopback, Self.wired]))
            #expect(await eventually { caller.getStats()?.selectedIceCandidatePair?.localCandidate.ip == "127.0.0.2" })
            feed.yield(NetworkSnapshot(networks: [Self.wired]))
            #expect(await eventually { recorder.callbacks.contains("callDidReconnect") }, "\(recorder.callbacks)")
            #expect(recorder.callbacks.contains { $0.hasPrefix("isReconnectingWithError") }, "\(recorder.callbacks)")
            #expect(await eventually { caller.state == .connected })
            #expect(await eventually { caller.getStats()?.selectedIceCandidatePair?.localCandidate.ip == "127.0.0.2" })
            // The resumed session still carries the call: a hangup from here ends it at the edge.
            caller.disconnect()
            #expect(await caller.endingError() == nil)
        }
    }

    /// The call's only network goes and no other comes before consent expires: the call ends
    /// with 53405, and the change, with no network after it, is in ``Call/networkChanges`` as
    /// soon as the call's result is in (the run still tells the edge then).
    @Test func aCallEndingWhileItsNetworkIsGoneHasTheChange() async throws {
        try await CallHarness.withEdge { harness in
            var options = CallOptions()
            options.consentTimeout = .seconds(1)
            let (caller, feed, _) = try await Self.connectedCall(harness, options: options)
            feed.yield(NetworkSnapshot(networks: []))
            #expect(await caller.endingError()?.code == .mediaConnectionFailed)
            let change = try #require(caller.networkChanges.last, "no change recorded by the end")
            #expect(caller.networkChanges.count == 1)
            #expect(change.reason == .networkLost)
            #expect(change.from == "lo" && change.to == nil, "\(change)")
        }
    }

    /// A pre-call diagnosis's call (``CallOptions/endsWithoutNetwork``) does not wait for a
    /// network: with none left it ends at once with 70902, the change recorded.
    @Test func aDiagnosisCallEndsAtOnceWhenNoNetworkIsLeft() async throws {
        try await CallHarness.withEdge { harness in
            var options = CallOptions()
            options.endsWithoutNetwork = true
            let (caller, feed, _) = try await Self.connectedCall(harness, options: options)
            feed.yield(NetworkSnapshot(networks: []))
            // A user's call would wait for the consent timeout (30 s) and end with 53405.
            #expect(await caller.endingError()?.code == .noNetwork)
            #expect(caller.networkChanges.map(\.reason) == [.networkLost], "\(caller.networkChanges)")
        }
    }
}
