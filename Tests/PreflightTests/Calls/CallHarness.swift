import Foundation
import Preflight
import PreflightEdge
import PreflightTesting
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

    /// Runs `body` with an edge process started with `arguments`, then stops it (gracefully, about
    /// 2 s, on a thread of its own: see ``withBlockingCleanup(_:_:)``).
    static func withEdge<T: Sendable>(
        _ arguments: [String] = [], _ body: @Sendable (CallHarness) async throws -> T
    ) async throws -> T {
        let edge = try await EdgeProcess.start(executable: executable, arguments: ["--log-level", "error"] + arguments)
        return try await withBlockingCleanup({ edge.stop() }) {
            try await body(CallHarness(edge: edge))
        }
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

    /// Waits until `count` callbacks arrived (the delegate runs in its own task), at most 30 s.
    func wait(for count: Int) async {
        _ = await eventually { entries.withLock { $0.count } >= count }
    }
}

/// The next element of `stream`, at most `timeout` away (a timeout ends the stream).
func next<T: Sendable>(_ stream: AsyncStream<T>, within timeout: Duration = .seconds(30)) async -> T? {
    await first(in: stream, within: timeout) { _ in true }
}

/// The first element of `stream` that satisfies `condition`, at most `timeout` away; `nil` when
/// the stream finished or the time ran out first.
func first<T: Sendable>(
    in stream: AsyncStream<T>, within timeout: Duration = .seconds(30), where condition: @escaping @Sendable (T) -> Bool
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask {
            for await element in stream where condition(element) { return element }
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
    /// Waits for `state`, at most `timeout`; a call that ended first never reaches it.
    func wait(for state: CallState, within timeout: Duration = .seconds(30)) async -> Bool {
        _ = await eventually(within: timeout) { self.state == state || self.state == .disconnected }
        return self.state == state
    }

    /// Waits until `condition` holds of the call, at most `timeout`.
    func wait(within timeout: Duration = .seconds(30), until condition: (Call) -> Bool) async -> Bool {
        await eventually(within: timeout) { condition(self) }
    }

    /// Waits for the call's next one-second sample that satisfies `condition` (from its
    /// `events()`), at most `timeout`; `nil` when the call ended or the time ran out first.
    func sample(within timeout: Duration = .seconds(30), where condition: @escaping @Sendable (StatsSample) -> Bool) async -> StatsSample? {
        let event = await first(in: events(), within: timeout) { event in
            if case .sample(let sample) = event { return condition(sample) }
            return false
        }
        guard case .sample(let sample) = event else { return nil }
        return sample
    }
}

extension Call {
    /// The call's ``result()`` as a value: the error it ended with, `nil` when a party hung up
    /// normally.
    @discardableResult
    func endingError() async -> PreflightError? {
        do throws(PreflightError) {
            try await result()
            return nil
        } catch {
            return error
        }
    }
}
