import Foundation
import Logging
public import PreflightModel
internal import PreflightNIO
import Synchronization

/// A call between this device and another party through the edge ("Twilio Voice SDK: TVOCall").
/// Place one with ``Voice/connect(options:delegate:logger:)`` (this device is the caller) or
/// answer one with ``CallInvite/accept(options:delegate:logger:)`` (the callee); it is not
/// created directly.
///
/// Every call starts in ``CallState/connecting`` and ends in ``CallState/disconnected``, with
/// exactly the callbacks of the reference's caller and callee tables (``CallStateMachine``).
/// Follow it with ``events()`` (an `AsyncStream` per subscriber) or a ``CallDelegate``.
/// ``disconnect()`` ends it, and may be called any number of times.
public final class Call: Sendable {
    /// Which side of the call this device is.
    public let role: CallRole
    let logger: Logger
    /// The call's clock (``CallOptions/clock``): its run's timers and the messages' rate window.
    let clock: RunClock
    /// Silent frames while muted or on hold: flipped here, read by the audio source.
    let audio = CallAudioSource.Switch()
    let handle: RunHandle<CallEvent, Void, State>
    /// Over once the call's run is: the edge told of the hangup, media and ICE closed.
    let teardown = Teardown()

    struct State {
        var from: String?
        var to: String?
        var sid: String?
        var machine: CallStateMachine
        var states: [CallState] = [.connecting]
        var warnings: Set<QualityWarning> = []
        var latestSample: StatsSample?
        var inputs: AsyncStream<CallRun.Input>.Continuation?
        /// Posts Insights events of this call once its run is over (a new signaling session for
        /// a caller, the registration's for a callee).
        var poster: (@Sendable (_ callSid: String, _ events: [InsightsEvent]) async -> Void)?
        /// The Insights `connection` events of the state machine, not yet sent.
        var insights: [InsightsEvent] = []
        /// The run's media session and selected pair, for ``getStats()``.
        var media: MediaSession?
        var selectedPair: ICECandidatePairStats?
        /// The local candidates gathered for the call.
        var iceCandidates: [ICECandidateStats] = []
        /// The changes of the host's networks during the call.
        var networkChanges: [NetworkChangeRecord] = []
        /// When the last messages went out (at most ``CallMessage/maximumPerWindow``).
        var messageTimes: [ContinuousClock.Instant] = []
    }

    init(role: CallRole, from: String?, to: String?, sid: String?, clock: RunClock, logger: Logger) {
        self.role = role
        self.clock = clock
        self.logger = logger
        // A caller connects when the edge answers and media flows (with or without the dial
        // application's answerOnBridge, the edge decides when it answers).
        handle = RunHandle(State(from: from, to: to, sid: sid, machine: CallStateMachine(role: role, answerOnBridge: true)))
    }

    // MARK: Properties (TVOCall's)

    /// The local ICE candidates the call gathered (host, server-reflexive, relayed), as the
    /// preflight report lists them; empty until gathering completes. (Added; Twilio has none.)
    public var iceCandidates: [ICECandidateStats] { handle.withLock { $0.iceCandidates } }

    /// Each change of the host's networks during the call, as its Insights `network-change`
    /// events record them (docs/protocol.md, "Network changes"). (Added; Twilio has none.)
    public var networkChanges: [NetworkChangeRecord] { handle.withLock { $0.networkChanges } }

    /// The caller (`client:<identity>`); `nil` for a call this device placed.
    public var from: String? { handle.withLock { $0.from } }
    /// Whom the call is to, as dialed; for a call placed here, the `To` parameter.
    public var to: String? { handle.withLock { $0.to } }
    /// The edge's identifier of the call; `nil` until ringing (for the caller).
    public var sid: String? { handle.withLock { $0.sid } }
    /// The current state.
    public var state: CallState { handle.withLock { $0.machine.state } }
    /// Every state the call entered, in order, from ``CallState/connecting``.
    public var states: [CallState] { handle.withLock { $0.states } }
    /// Whether the audio input is muted (silent frames are sent).
    public var isMuted: Bool { handle.withLock { $0.machine.isMuted } }
    /// Whether the call is on hold (silent frames are sent and the remote's audio is not played).
    public var isOnHold: Bool { handle.withLock { $0.machine.isOnHold } }
    /// The quality warnings active now.
    public var callQualityWarnings: Set<QualityWarning> { handle.withLock { $0.warnings } }
    /// The latest one-second stats sample.
    public var latestSample: StatsSample? { handle.withLock { $0.latestSample } }

    // MARK: Actions

    /// Ends the call: `didDisconnect` without error unless it already ended; calling it again,
    /// or on a disconnected call, has no effect.
    public func disconnect() {
        handle.withLock { $0.inputs }?.yield(.user(.disconnect))
    }

    /// Mutes (`true`) or unmutes the audio input: silent frames are sent from the next frame on.
    /// Takes effect only while the call is ``CallState/connected``.
    public func setMuted(_ muted: Bool) {
        if !apply(.mute(muted)).isIgnored { updateSilence() }
    }

    /// Puts the call on hold (`true`) or resumes it: silent frames are sent and the remote's
    /// audio is not played. Takes effect only while the call is ``CallState/connected``.
    public func setOnHold(_ onHold: Bool) {
        if !apply(.hold(onHold)).isIgnored { updateSilence() }
    }

    private func updateSilence() {
        let (muted, held) = handle.withLock { ($0.machine.isMuted, $0.machine.isOnHold) }
        audio.silent.store(muted || held, ordering: .relaxed)
        audio.held.store(held, ordering: .relaxed)
    }

    /// Posts the user's feedback on this call to the edge, as the Insights event `feedback`
    /// `received` (or `received-none` when neither a score nor an issue is given). Works during
    /// the call and after it ended; a call the edge never named (no ``sid``) has nowhere to post.
    public func postFeedback(score: CallFeedbackScore = .notReported, issue: CallFeedbackIssue = .notReported) async {
        let none = score == .notReported && issue == .notReported
        let event = InsightsEvent(
            .feedback, none ? "received-none" : "received", timestamp: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)),
            payload: ["score": "\(score.rawValue)", "issue": issue.rawValue])
        let (live, sid, poster) = handle.apply { state, step in
            (step.isEnded ? nil : state.inputs, state.sid, state.poster)
        }
        if let live, case .enqueued = live.yield(.user(.feedback(event))) { return }
        guard let sid, let poster else { return }
        await poster(sid, [event])
    }

    // MARK: Events

    /// A new stream of the call's events from now on. A stream made after the call ended yields
    /// its final event and finishes, so awaiting it never hangs.
    public func events() -> AsyncStream<CallEvent> {
        handle.events()
    }

    /// Waits for the end of the call, and for the edge to be told (its hangup sent, media and
    /// ICE closed): a program may exit once it returns. The state and ``events()`` say
    /// `disconnected` as soon as the call ends.
    /// - Throws: the ``PreflightError`` it ended with (``CallEvent/failedToConnect(_:)`` or
    ///   ``CallEvent/disconnected(_:)`` with an error); returns when a party hung up normally.
    public func result() async throws(PreflightError) {
        let outcome: Result<Void, PreflightError>
        do {
            try await handle.result()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await teardown.wait()
        try outcome.get()
    }

    /// Set once: waiters resume when the call's run is over.
    final class Teardown: Sendable {
        private let state = Mutex<(over: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func finish() {
            let waiters = state.withLock { state in
                state.over = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func wait() async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let over = state.withLock { state in
                    if !state.over { state.waiters.append(waiter) }
                    return state.over
                }
                if over { waiter.resume() }
            }
        }
    }

    /// Adapts the message events to `delegate` (one subscriber among any others), its callbacks
    /// on `queue`.
    func attach(messages delegate: (any CallMessageDelegate)?, on queue: DispatchQueue) {
        guard let delegate else { return }
        handle.adapt(on: queue) { [self] event in
            let sid = self.sid ?? ""
            switch event {
            case .messageReceived(let message): delegate.messageReceived(forCallSid: sid, message: message)
            case .messageSent(let id): delegate.messageSent(forCallSid: sid, voiceEventSid: id)
            case .messageFailed(let id, let error): delegate.messageFailed(forCallSid: sid, voiceEventSid: id, error: error)
            default: break
            }
        }
    }

    /// Adapts the event stream to `delegate` (one subscriber among any others), its callbacks on
    /// `queue`.
    func attach(_ delegate: (any CallDelegate)?, on queue: DispatchQueue) {
        guard let delegate else { return }
        handle.adapt(on: queue) { [self] event in
            switch event {
            case .ringing: delegate.callDidStartRinging(self)
            case .connected: delegate.callDidConnect(self)
            case .failedToConnect(let error): delegate.call(self, didFailToConnectWithError: error)
            case .disconnected(let error): delegate.call(self, didDisconnectWithError: error)
            case .reconnecting(let error): delegate.call(self, isReconnectingWithError: error)
            case .reconnected: delegate.callDidReconnect(self)
            case .qualityWarnings(let current, let previous):
                delegate.call(self, didReceiveQualityWarnings: current, previousWarnings: previous)
            case .sample, .messageReceived, .messageSent, .messageFailed, .digitReceived: break
            }
        }
    }
}
