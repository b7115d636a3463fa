import Foundation
import PreflightCore

/// What one party of a call went through, as `preflight call` prints it (and `--json` encodes
/// it): the states it entered, its `TVOCallDelegate` callbacks in order ("Twilio Voice SDK:
/// TVOCall"), the error it ended with, its one-second samples, the quality warnings raised and
/// cleared, and a summary of the samples.
public struct CallOutcome: Sendable, Hashable, Codable {
    /// The party: `caller` or `callee`.
    public var party: String
    /// Every state the call entered, in order (`CallState` raw values: `connecting`, `ringing`, …).
    public var states: [String]
    /// The delegate callbacks in order, by their Objective-C names (`callDidStartRinging`,
    /// `callDidConnect`, `call:didDisconnectWithError:`, …).
    public var callbacks: [String]
    /// The edge's identifier of the call; `null` when it never rang.
    public var callSid: String?
    /// The error the call failed or ended with; `null` after a normal hangup.
    public var error: ReportError?
    /// The one-second stats samples, as in the preflight report's `statsSamples`.
    public var samples: [StatsSample]
    /// The quality warnings raised and cleared, in order.
    public var warnings: [CallWarningChange]
    /// The samples summarised.
    public var summary: CallSampleSummary
    /// The DTMF digits the other party sent (`--digits`), in order; empty when none came.
    public var digitsReceived: String

    /// Each change of the host's networks during the call (``Call/networkChanges``).
    public var networkChanges: [NetworkChangeRecord] = []
    /// Milliseconds from placing the call (the caller) or accepting it (the callee) to
    /// `callDidConnect`; `nil` when it never connected.
    public var connectMilliseconds: Double?

    /// Creates an outcome; the summary is made from `samples` and `warnings`.
    public init(
        party: String, states: [String], callbacks: [String], callSid: String?, error: ReportError?, samples: [StatsSample],
        warnings: [CallWarningChange], digitsReceived: String = ""
    ) {
        self.digitsReceived = digitsReceived
        self.party = party
        self.states = states
        self.callbacks = callbacks
        self.callSid = callSid
        self.error = error
        self.samples = samples
        self.warnings = warnings
        summary = CallSampleSummary(samples: samples, warnings: warnings)
    }

    private enum CodingKeys: String, CodingKey {
        case party, states, callbacks, callSid, error, samples, warnings, summary, digitsReceived, networkChanges, connectMilliseconds
    }

    /// Encodes every key, `callSid` and `error` as `null` when absent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(party, forKey: .party)
        try container.encode(states, forKey: .states)
        try container.encode(callbacks, forKey: .callbacks)
        try container.encode(callSid, forKey: .callSid)
        try container.encode(error, forKey: .error)
        try container.encode(samples, forKey: .samples)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(summary, forKey: .summary)
        try container.encode(digitsReceived, forKey: .digitsReceived)
        try container.encode(networkChanges, forKey: .networkChanges)
        try container.encode(connectMilliseconds, forKey: .connectMilliseconds)
    }

    /// The error as a ``PreflightError`` (for the exit status), when there is one.
    var preflightError: PreflightError? {
        error.map { PreflightError(code: PreflightError.Code($0.code), message: $0.message) }
    }
}
