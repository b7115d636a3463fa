import Foundation
import Preflight
import PreflightEdge
import Synchronization
import Testing

/// Two or more SDK parties and a real `preflight serve` process: what the call tests share.
struct CallHarness: Sendable {
    let edge: EdgeProcess

    /// The `preflight` executable that `swift test` builds beside the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("preflight")
    }

    /// Runs `body` with an edge process started with `arguments`, then stops it.
    static func withEdge<T: Sendable>(
        _ arguments: [String] = [], _ body: @Sendable (CallHarness) async throws -> T
    ) async throws -> T {
        let edge = try await EdgeProcess.start(executable: executable, arguments: ["--log-level", "error"] + arguments)
        defer { edge.stop() }
        return try await body(CallHarness(edge: edge))
    }

    /// Registers `identity` for incoming calls.
    func register(_ identity: String) async throws -> Registration {
        try await Voice.register(options: RegistrationOptions(
            accessToken: try await edge.callToken(identity: identity), edgeURL: edge.signalingURL))
    }

    /// Places a call from `identity` to `to`.
    func connect(
        from identity: String = "alice", to: String, answerOnBridge: Bool = false, params: [String: String] = [:],
        callOptions: CallOptions = CallOptions(), delegate: (any CallDelegate)? = nil
    ) async throws -> Call {
        var all = params
        all["To"] = to
        let token = try await edge.callToken(identity: identity, answerOnBridge: answerOnBridge)
        return Voice.connect(
            options: ConnectOptions(accessToken: token, edgeURL: edge.signalingURL, params: all, callOptions: callOptions),
            delegate: delegate)
    }
}

extension CallHarness {
    /// A call from alice to bob (bob registered, his invite accepted), both parties connected.
    struct ConnectedCall: Sendable {
        let caller: Call
        let callee: Call
        /// Bob's registration: unregister it at the end.
        let bob: Registration
    }

    /// Registers bob, calls him from alice, accepts on his side and expects both to connect.
    func connectedCall(
        callerOptions: CallOptions = CallOptions(), calleeOptions: CallOptions = CallOptions(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ConnectedCall {
        let bob = try await register("bob")
        let invites = bob.events()
        let caller = try await connect(to: "client:bob", callOptions: callerOptions)
        let invite = try #require(await next(invites)?.invite, sourceLocation: sourceLocation)
        let callee = invite.accept(options: AcceptOptions(callOptions: calleeOptions))
        #expect(await caller.wait(for: .connected), sourceLocation: sourceLocation)
        #expect(await callee.wait(for: .connected), sourceLocation: sourceLocation)
        return ConnectedCall(caller: caller, callee: callee, bob: bob)
    }
}

/// Records a call's delegate callbacks, by the delegate method's name, in order.
final class CallbackRecorder: CallDelegate, Sendable {
    private let entries = Mutex<[String]>([])
    private let errors = Mutex<[PreflightError?]>([])

    var callbacks: [String] { entries.withLock { $0 } }
    /// The error of the final callback (`didFailToConnect` or `didDisconnect`).
    var finalError: PreflightError? { errors.withLock { $0.last ?? nil } }

    private func record(_ name: String, _ error: PreflightError?? = .none) {
        entries.withLock { $0.append(name) }
        if case .some(let error) = error { errors.withLock { $0.append(error) } }
    }

    func callDidStartRinging(_ call: Call) { record("callDidStartRinging") }
    func callDidConnect(_ call: Call) { record("callDidConnect") }
    func call(_ call: Call, didFailToConnectWithError error: PreflightError) { record("didFailToConnectWithError", error) }
    func call(_ call: Call, didDisconnectWithError error: PreflightError?) { record("didDisconnectWithError", .some(error)) }
    func call(_ call: Call, isReconnectingWithError error: PreflightError) { record("isReconnectingWithError \(error.code)") }
    func callDidReconnect(_ call: Call) { record("callDidReconnect") }

    /// Waits until `count` callbacks arrived (the delegate runs in its own task), at most 5 s.
    func wait(for count: Int) async {
        let deadline = ContinuousClock.now + .seconds(5)
        while entries.withLock({ $0.count }) < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// The next element of `stream`, at most `timeout` away (a timeout ends the stream).
func next<T: Sendable>(_ stream: AsyncStream<T>, within timeout: Duration = .seconds(10)) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask {
            for await element in stream { return element }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

extension RegistrationEvent {
    var invite: CallInvite? {
        if case .callInvite(let invite) = self { return invite }
        return nil
    }

    var cancelled: (CancelledCallInvite, PreflightError)? {
        if case .cancelledCallInvite(let cancelled, let error) = self { return (cancelled, error) }
        return nil
    }
}

extension Call {
    /// Waits for `state`, at most `timeout`.
    func wait(for state: CallState, within timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while self.state != state, ContinuousClock.now < deadline {
            if self.state == .disconnected { return state == .disconnected }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return self.state == state
    }
}

extension Call {
    /// Waits until `condition` holds of the call (checked every 10 ms), at most `timeout`.
    func wait(within timeout: Duration = .seconds(20), until condition: (Call) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(self), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(self)
    }
}
