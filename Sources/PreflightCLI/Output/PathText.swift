import Foundation
import PreflightCore

/// The text of a path diagnosis: one line per hop, the segments, the verdict in plain words.
enum PathText {
    static func render(_ diagnosis: PathDiagnosis) -> String {
        var lines = ["Path to \(diagnosis.destination)"]
        if let error = diagnosis.error {
            lines.append("  not probed: error \(error.code): \(error.message)")
            return lines.joined(separator: "\n")
        }
        lines.append("  hop  address                                  segment          sent  loss    rtt min/med/p95 ms       jitter")
        for hop in diagnosis.hops {
            func ms(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-" }
            let rtt = "\(ms(hop.rttMin))/\(ms(hop.rttMedian))/\(ms(hop.rttP95))"
            let note = hop.note.map { "  (\($0.rawValue))" } ?? ""
            lines.append(
                "  " + pad(String(hop.ttl), 3, right: true) + "  " + pad(hop.address ?? "*", 40) + " " + pad(hop.segment.rawValue, 16) + " "
                    + pad(String(hop.sent), 4, right: true) + "  " + pad(String(format: "%.0f %%", hop.lossPercent), 6) + "  " + pad(rtt, 24) + " "
                    + ms(hop.jitter) + note)
        }
        for segment in diagnosis.segments {
            let blamed = diagnosis.blames.contains { $0.segment == segment.kind } ? "  ← blamed" : ""
            lines.append("  \(segment.name): hops \(segment.firstHop)–\(segment.lastHop)\(blamed)")
        }
        let share = diagnosis.probeSharePercent.map { String(format: "%.1f %%", $0) } ?? "n/a"
        lines.append("  \(diagnosis.probesSent) probes (\(share) of the test's \(diagnosis.testPackets) packets), \(diagnosis.answersReceived) answers")
        lines.append("Verdict: \(diagnosis.summary)")
        return lines.joined(separator: "\n")
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let gap = String(repeating: " ", count: max(0, width - text.count))
        return right ? gap + text : text + gap
    }
}
