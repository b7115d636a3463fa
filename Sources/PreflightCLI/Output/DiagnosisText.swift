import Foundation
import PreflightCore

/// How `preflight diagnose` prints a diagnosis for people.
enum DiagnosisText {
    /// The outcome: the figures of a completed diagnosis (seconds, as Telnyx reports them, with
    /// milliseconds beside), or the error.
    static func summary(_ outcome: DiagnoseCommand.Outcome) -> String {
        guard let diagnosis = outcome.diagnosis else {
            return "Pre-call diagnosis failed: error \(outcome.error?.code ?? 0): \(outcome.error?.message ?? "")"
        }
        func seconds(_ summary: MetricSummary) -> String {
            String(format: "avg %.4f s (%.1f ms), min %.4f s, max %.4f s", summary.avg, summary.avg * 1000, summary.min, summary.max)
        }
        func rating(_ value: MetricRating?) -> String { value?.rawValue ?? "unknown" }
        let estimate = AudioPayloadFormat.named(diagnosis.codec) == .opus ? " (an estimate for Opus)" : ""
        return [
            "Pre-call diagnosis completed",
            String(format: "  MOS          %.2f, quality %@%@", diagnosis.mos, diagnosis.quality.rawValue, estimate),
            "  Jitter       \(seconds(diagnosis.jitter)), \(rating(diagnosis.jitterRating))",
            "  RTT          \(seconds(diagnosis.rtt)), \(rating(diagnosis.rttRating))",
            String(format: "  Loss         %.2f %%, %@", diagnosis.packetLossPercent, rating(diagnosis.packetLossRating)),
            "  Sent         \(diagnosis.packetsSent) packets, \(diagnosis.bytesSent) bytes (\(diagnosis.codec))",
            "  Received     \(diagnosis.packetsReceived) packets, \(diagnosis.bytesReceived) bytes",
            "  Candidates   " + diagnosis.iceCandidates.map { "\($0.candidateType) \($0.ip):\($0.port)" }.joined(separator: ", "),
        ].joined(separator: "\n")
    }
}
