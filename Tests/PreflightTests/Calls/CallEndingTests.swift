import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

/// The last two reasons of the tables' connected rows, and the reconnection sequence of the
/// reference's text, through a real edge process.
@Suite(.realTime, .serialized, .timeLimit(.minutes(10))) struct CallEndingTests {
    static let coturn = ExternalTool.canRun(needing: "turnserver")

    /// Connects alice (caller) and bob (callee) on `harness`; `callerURL` and `callerOptions`
    /// let the caller's signaling and media take another way.
    static func connect(
        _ harness: CallHarness, callerURL: String? = nil, callerOptions: CallOptions = CallOptions(),
        callee registration: Registration? = nil
    ) async throws -> (caller: Call, callee: Call, callerRecorder: CallbackRecorder, calleeRecorder: CallbackRecorder, bob: Registration) {
        let bob: Registration
        if let registration { bob = registration } else { bob = try await harness.register("bob") }
        let invites = bob.events()
        let callerRecorder = CallbackRecorder()
        let calleeRecorder = CallbackRecorder()
        let token = try await harness.edge.callToken(identity: "alice")
        let caller = Voice.connect(
            options: ConnectOptions(
                accessToken: token, edgeURL: callerURL ?? harness.edge.signalingURL, params: ["To": "client:bob"],
                signalingResumeTimeout: .seconds(5), callOptions: callerOptions),
            delegate: callerRecorder)
        let invite = try #require(await next(invites)?.invite)
        let callee = invite.accept(delegate: calleeRecorder)
        #expect(await caller.wait(for: .connected))
        #expect(await callee.wait(for: .connected))
        return (caller, callee, callerRecorder, calleeRecorder, bob)
    }

    // MARK: An error between the parties

    @Test func theEdgeEndsACallAtItsMaximumDurationForBothParties() async throws {
        try await CallHarness.withEdge(["--max-call-duration", "2"]) { harness in
            let (caller, callee, callerRecorder, calleeRecorder, bob) = try await Self.connect(harness)
            #expect(await caller.endingError()?.code == .callDurationExceeded)
            #expect(await callee.endingError()?.code == .callDurationExceeded)
            await callerRecorder.wait(for: 3)
            await calleeRecorder.wait(for: 3)
            #expect(callerRecorder.callbacks == CallLifecycleTests.connectedCallbacks)
            #expect(calleeRecorder.callbacks == CallLifecycleTests.connectedCallbacks)
            #expect(caller.states == CallLifecycleTests.connected)
            #expect(callee.states == CallLifecycleTests.connected)
            await bob.unregister()
        }
    }

    @Test func losingTheCalleeEndsTheCallersCallWithAnError() async throws {
        try await CallHarness.withEdge(["--session-resume-window", "1"]) { harness in
            let port = try #require(URL(string: harness.edge.signalingURL)?.port)
            let relay = try await TCPRelay.start(targetPort: port)
            // Bob's signaling goes through the relay, which then disappears: his session is lost.
            let bob = try await Voice.register(options: RegistrationOptions(
                accessToken: try await harness.edge.callToken(identity: "bob"),
                edgeURL: "ws://127.0.0.1:\(relay.port)/signaling", signalingResumeTimeout: .seconds(1)))
            let (caller, _, callerRecorder, _, _) = try await Self.connect(harness, callee: bob)
            await relay.stop()
            let error = await caller.endingError()
            #expect(error?.code == .connectionError, "\(String(describing: error))")
            await callerRecorder.wait(for: 3)
            #expect(callerRecorder.callbacks == CallLifecycleTests.connectedCallbacks)
            #expect(caller.states == CallLifecycleTests.connected)
        }
    }

    // MARK: Reconnection ("Media and signaling reconnections are handled independently")

    @Test(.enabled(if: CallEndingTests.coturn, "needs coturn's turnserver on PATH (apt-get install coturn)"))
    func signalingThenMediaReconnectAsTheReferenceExampleSays() async throws {
        let turn = try await TURNServerProcess.start()
        defer { turn.stop() }
        let credentials = turn.credentials(identity: "alice")
        try await CallHarness.withEdge { harness in
            let port = try #require(URL(string: harness.edge.signalingURL)?.port)
            let relay = try await TCPRelay.start(targetPort: port)
            // Alice's signaling goes through a relay that can cut it, her media through coturn,
            // which can be frozen.
            let options = CallOptions(
                iceServers: [ICEServer(urls: [turn.url(transport: .udp)], username: credentials.username, credential: credentials.password)],
                iceTransportPolicy: .relay)
            let (caller, callee, recorder, _, bob) = try await Self.connect(
                harness, callerURL: "ws://127.0.0.1:\(relay.port)/signaling", callerOptions: options)
            await relay.cut()
            // Resuming on loopback takes milliseconds: wait for the callbacks, not the states.
            await recorder.wait(for: 4)
            #expect(caller.state == .connected)
            kill(turn.process.processIdentifier, SIGSTOP)
            #expect(await caller.wait(for: .reconnecting))
            kill(turn.process.processIdentifier, SIGCONT)
            #expect(await caller.wait(for: .connected))
            caller.disconnect()
            #expect(await caller.endingError() == nil)
            #expect(await callee.endingError() == nil)
            await recorder.wait(for: 7)
            #expect(recorder.callbacks == [
                "callDidStartRinging", "callDidConnect", "isReconnectingWithError 53001", "callDidReconnect",
                "isReconnectingWithError 53405", "callDidReconnect", "didDisconnectWithError",
            ])
            #expect(caller.states == [.connecting, .ringing, .connected, .reconnecting, .connected, .reconnecting, .connected, .disconnected])
            await relay.stop()
            await bob.unregister()
        }
    }

    // MARK: An on-device error

    /// The device loses its network for good (its only path, through coturn, dies): the SDK tries
    /// to recover first, as the reference's text says it always does, then ends the call with
    /// 53405 when consent expires (RFC 7675). The table's row lists no reconnecting between
    /// connect and disconnect; the text that follows it in the same document makes every loss
    /// of media report it, and this test holds the SDK to the text (docs/protocol.md).
    @Test(.enabled(if: CallEndingTests.coturn, "needs coturn's turnserver on PATH (apt-get install coturn)"))
    func losingTheNetworkForGoodEndsTheCallWithAnError() async throws {
        let turn = try await TURNServerProcess.start()
        defer { turn.stop() }
        let credentials = turn.credentials(identity: "alice")
        try await CallHarness.withEdge { harness in
            let options = CallOptions(
                iceServers: [ICEServer(urls: [turn.url(transport: .udp)], username: credentials.username, credential: credentials.password)],
                iceTransportPolicy: .relay, mediaTimeout: .seconds(1), consentTimeout: .seconds(3))
            let (caller, callee, recorder, calleeRecorder, bob) = try await Self.connect(harness, callerOptions: options)
            turn.stop()
            let error = await caller.endingError()
            #expect(error?.code == .mediaConnectionFailed, "\(String(describing: error))")
            await recorder.wait(for: 4)
            #expect(recorder.callbacks == [
                "callDidStartRinging", "callDidConnect", "isReconnectingWithError 53405", "didDisconnectWithError",
            ])
            #expect(caller.states == [.connecting, .ringing, .connected, .reconnecting, .disconnected])
            // The other party: the caller hung up (with its error), a normal end on this side.
            #expect(await callee.endingError() == nil)
            await calleeRecorder.wait(for: 3)
            #expect(calleeRecorder.callbacks == CallLifecycleTests.connectedCallbacks)
            await bob.unregister()
        }
    }
}
