import Foundation
import Preflight

/// The command line's text for a last-mile probe: the quality lines, the summary, the JSON.
public enum ProbeText {
    /// `  2 s  quality good (2)`.
    public static func qualityLine(second: Int, quality: NetworkQuality) -> String {
        "\(String(repeating: " ", count: max(0, 3 - String(second).count)))\(second) s  quality \(name(quality)) (\(quality.rawValue))"
    }

    /// The result in words.
    public static func summary(_ result: LastmileProbeResult) -> String {
        var lines = [
            "last-mile probe: \(result.state.rawValue) in \(format(result.duration, 1)) s, edge \(result.edge.isEmpty ? "-" : result.edge)"
                + (result.loopback ? " (loopback: this host's figures, not a network's)" : ""),
            "  rtt \(format(result.rtt, 1)) ms",
        ]
        for (name, report) in [("uplink", result.uplinkReport), ("downlink", result.downlinkReport)] {
            guard let report else { continue }
            lines.append("  \(name): " + direction(report))
        }
        if let error = result.error { lines.append("  stopped by error \(error.code): \(error.message)") }
        return lines.joined(separator: "\n")
    }

    static func direction(_ report: LastmileProbeOneWayResult) -> String {
        let bandwidth: String
        switch report.state {
        case .complete where report.atLeastExpected:
            bandwidth = "at least the expected \(report.expectedBitrate / 1000) kbit/s (carried \(Int(report.availableBandwidth)) kbit/s without queueing)"
        case .complete:
            bandwidth = "\(Int(report.availableBandwidth.rounded())) kbit/s available"
        case .incompleteNoBwe, .unavailable:
            bandwidth = "no estimate (\(report.reason ?? report.state.rawValue))"
        }
        return bandwidth
            + "; loss \(format(report.packetLossRate, 1)) %, jitter \(format(report.jitter, 2)) ms; probed up to \(Int(report.probedBitrate / 1000)) kbit/s, "
            + "\(report.bytesSent / 1000) KB in \(format(report.duration, 1)) s"
    }

    /// The result as pretty JSON with sorted keys.
    public static func json(_ result: LastmileProbeResult) -> String {
        (try? JSONText.pretty(result)) ?? "{}"
    }

    static func name(_ quality: NetworkQuality) -> String {
        switch quality {
        case .unknown: "unknown"
        case .excellent: "excellent"
        case .good: "good"
        case .poor: "poor"
        case .bad: "bad"
        case .veryBad: "very bad"
        case .down: "down"
        case .unsupported: "unsupported"
        case .detecting: "detecting"
        }
    }

    static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value.isFinite ? value : 0)
    }
}
