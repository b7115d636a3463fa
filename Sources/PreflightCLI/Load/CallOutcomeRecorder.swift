import Foundation
import Preflight
import PreflightCore
import Synchronization

/// Records one party's call for ``CallOutcome``: a ``CallDelegate`` for the callbacks (attached
/// when the call is made, so none is missed) and a reader of ``Call/events()`` for the samples;
/// each callback and sample is also told to `live` as a line.
final class CallOutcomeRecorder: CallDelegate, Sendable {
    let party: String
    /// The queue its callbacks run on (the options' `delegateQueue`): a serial queue of its own,
    /// so that the command's callbacks do not wait on the main queue.
    let callbackQueue: DispatchQueue
    private let live: @Sendable (String) -> Void
    private let state = Mutex(Recorded())

    struct Recorded {
        var callbacks: [String] = []
        var error: PreflightError?
        var samples: [StatsSample] = []
        var warnings: [CallWarningChange] = []
        /// DTMF digits the other party sent.
        var digits = ""
        var active: Set<QualityWarning> = []
        var sampleReader: Task<Void, Never>?
        /// When the call connected (its `callDidConnect`).
        var connectedAt: ContinuousClock.Instant?
    }

    /// When the recorder was made: as the call was placed or accepted.
    private let started = ContinuousClock.now

    /// - Parameters:
    ///   - party: `caller` or `callee`, the first word of each live line.
    ///   - live: where the live lines go.
    init(party: String, live: @escaping @Sendable (String) -> Void) {
        self.party = party
        self.live = live
        callbackQueue = DispatchQueue(label: "preflight.call.\(party).callbacks")
    }

    /// Starts reading `call`'s samples (call at once after making the call: samples start only
    /// once it is connected).
    func follow(_ call: Call) {
        let events = call.events()
        let reader = Task { [self] in
            for await event in events {
                if case .digitReceived(let digit) = event {
                    state.withLock { $0.digits.append(digit) }
                    live("\(party) digit received: \(digit)")
                    continue
                }
                guard case .sample(let sample) = event else { continue }
                let (second, warnings) = state.withLock { recorded in
                    recorded.samples.append(sample)
                    return (recorded.samples.count, recorded.active)
                }
                live(CallReportText.sampleLine(party: party, second: second, sample: sample, warnings: warnings))
            }
        }
        state.withLock { $0.sampleReader = reader }
    }

    /// The outcome of `call`, after it ended (waits for the last samples to be read).
    func outcome(of call: Call) async -> CallOutcome {
        await state.withLock { $0.sampleReader }?.value
        // The delegate runs on its own queue: let it record the final callback (at most 5 s).
        let deadline = ContinuousClock.now + .seconds(5)
        while !hasFinalCallback, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        var outcome = state.withLock { recorded in
            CallOutcome(
                party: party, states: call.states.map(\.rawValue), callbacks: recorded.callbacks, callSid: call.sid,
                error: recorded.error.map { ReportError($0) }, samples: recorded.samples, warnings: recorded.warnings,
                digitsReceived: recorded.digits)
        }
        outcome.networkChanges = call.networkChanges
        outcome.connectMilliseconds = state.withLock { $0.connectedAt }.map { ($0 - started).inSeconds * 1000 }
        return outcome
    }

    /// The callbacks recorded so far.
    var callbacks: [String] { state.withLock { $0.callbacks } }

    /// Whether the call's last callback (failed to connect, or disconnected) was recorded.
    private var hasFinalCallback: Bool {
        callbacks.contains { $0 == Self.didFailToConnect || $0 == Self.didDisconnect }
    }

    static let didFailToConnect = "call:didFailToConnectWithError:"
    static let didDisconnect = "call:didDisconnectWithError:"

    private func record(_ name: String, _ detail: String = "", error: PreflightError? = nil) {
        state.withLock { recorded in
            recorded.callbacks.append(name)
            if let error { recorded.error = error }
        }
        live("\(party) \(name)\(detail.isEmpty ? "" : " \(detail)")")
    }

    func callDidStartRinging(_ call: Call) { record("callDidStartRinging", "call \(call.sid ?? "?")") }
    func callDidConnect(_ call: Call) {
        state.withLock { $0.connectedAt = .now }
        record("callDidConnect", "call \(call.sid ?? "?")")
    }
    func call(_ call: Call, didFailToConnectWithError error: PreflightError) {
        record(Self.didFailToConnect, "error \(error.code.rawValue): \(error.message)", error: error)
    }
    func call(_ call: Call, didDisconnectWithError error: PreflightError?) {
        record(Self.didDisconnect, error.map { "error \($0.code.rawValue): \($0.message)" } ?? "(no error)", error: error)
    }
    func call(_ call: Call, isReconnectingWithError error: PreflightError) {
        record("call:isReconnectingWithError:", "error \(error.code.rawValue): \(error.message)")
    }
    func callDidReconnect(_ call: Call) { record("callDidReconnect") }
    func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>, previousWarnings: Set<QualityWarning>) {
        let changes = CallWarningChange.changes(
            from: previousWarnings, to: currentWarnings, at: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
        state.withLock { recorded in
            recorded.warnings += changes
            recorded.active = currentWarnings
        }
        let names = currentWarnings.sorted().map(\.rawValue).joined(separator: ", ")
        record("call:didReceiveQualityWarnings:previousWarnings:", "now: \(names.isEmpty ? "none" : names)")
    }
}
