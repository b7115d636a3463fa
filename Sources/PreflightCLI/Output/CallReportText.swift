import Foundation
import PreflightCore

/// How `preflight call` and `preflight listen` render a call for people.
enum CallReportText {
    /// One line per second of a call: `caller   3 s  rtt   0.4 ms  jitter   0.1 ms  loss   0.0 %  mos 4.41  packets 150/148  warnings: none`.
    static func sampleLine(party: String, second: Int, sample: StatsSample, warnings: Set<QualityWarning>) -> String {
        let names = warnings.sorted().map(\.rawValue).joined(separator: ", ")
        return party.padding(toLength: 7, withPad: " ", startingAt: 0)
            + String(
                format: "%3d s  rtt %6.1f ms  jitter %5.1f ms  loss %5.1f %%  mos %.2f  packets %d/%d  warnings: %@",
                second, sample.rtt, sample.jitter, sample.packetsLostFraction, sample.mos, sample.packetsSent, sample.packetsReceived,
                names.isEmpty ? "none" : names)
    }

    /// The outcome of one party: states, callbacks, error, last sample, summary and warnings.
    static func summary(_ outcome: CallOutcome) -> String {
        var lines = ["\(outcome.party): call \(outcome.callSid ?? "(no call sid)")"]
        lines.append("  States       \(outcome.states.joined(separator: " → "))")
        lines.append("  Callbacks    \(outcome.callbacks.isEmpty ? "none" : outcome.callbacks.joined(separator: ", "))")
        lines.append("  Error        \(outcome.error.map { "error \($0.code): \($0.message)" } ?? "none")")
        let summary = outcome.summary
        if let last = outcome.samples.last {
            lines.append(String(
                format: "  Last sample  rtt %.1f ms, jitter %.1f ms, loss %.1f %%, mos %.2f, packets %d sent / %d received",
                last.rtt, last.jitter, last.packetsLostFraction, last.mos, last.packetsSent, last.packetsReceived))
            lines.append(String(format: "  RTT          mean %.1f ms, max %.1f ms", summary.rtt.average, summary.rtt.max))
            lines.append(String(format: "  Jitter       mean %.1f ms, max %.1f ms", summary.jitter.average, summary.jitter.max))
            lines.append(String(
                format: "  Loss         mean %.2f %%, max %.2f %%", summary.packetsLostFraction.average, summary.packetsLostFraction.max))
            lines.append(String(format: "  MOS          mean %.2f, min %.2f (%d samples)", summary.mos.average, summary.mos.min, summary.sampleCount))
        } else {
            lines.append("  Samples      none (media never flowed)")
        }
        let cleared = outcome.warnings.filter { $0.change == .cleared }.map(\.name)
        lines.append("  Warnings     \(summary.warningsRaised.isEmpty ? "none raised" : summary.warningsRaised.joined(separator: ", "))"
            + (cleared.isEmpty ? "" : "; cleared: \(cleared.joined(separator: ", "))"))
        return lines.joined(separator: "\n")
    }

    /// Both parties' summaries, caller first.
    static func summary(_ outcomes: CallOutcomes) -> String {
        ([outcomes.caller] + (outcomes.callee.map { [$0] } ?? [])).map(summary).joined(separator: "\n")
    }

    /// One JSON object on one line, keys sorted (for `listen --json`'s event lines).
    static func jsonLine(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
