import Foundation
import PreflightCore

/// How the command line renders samples and reports for people.
public enum ReportText {
    /// One progress line: `  3 s  rtt   0.4 ms  jitter   0.1 ms  loss  0.0 %  mos 4.41  warnings: none`.
    public static func progressLine(second: Int, sample: StatsSample, warnings: Set<QualityWarning>) -> String {
        let names = warnings.sorted().map(\.rawValue).joined(separator: ", ")
        return String(
            format: "%3d s  rtt %6.1f ms  jitter %5.1f ms  loss %5.1f %%  mos %.2f  warnings: %@",
            second, sample.rtt, sample.jitter, sample.packetsLostFraction, sample.mos, names.isEmpty ? "none" : names)
    }

    /// The report as pretty-printed JSON with sorted keys.
    public static func json(_ report: PreflightReport) -> String {
        guard let data = try? report.jsonData(prettyPrinted: true) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A human summary of a completed report.
    public static func summary(_ report: PreflightReport) -> String {
        let stats = report.networkStats
        var lines: [String] = []
        let seconds = Double(report.networkTiming.preflightTest?.duration ?? 0) / 1000
        lines.append(String(format: "Preflight test completed in %.1f s", seconds)
            + " (call \(report.callSid), edge \(report.edge)\(report.application.map { ", application \($0)" } ?? ""))")
        let quality = report.callQuality.map { "\($0) (callQuality \($0.rawValue))" } ?? "unknown (no samples)"
        lines.append(String(format: "  Quality      %@, MOS avg %.2f (min %.2f, max %.2f)", quality, stats.mos.average, stats.mos.min, stats.mos.max))
        if let last = report.statsSamples.last, !last.codec.isEmpty {
            lines.append(codecLine(last))
        }
        lines.append(String(format: "  RTT          avg %.1f ms (min %.1f, max %.1f)", stats.rtt.average, stats.rtt.min, stats.rtt.max))
        lines.append(String(format: "  Jitter       avg %.1f ms (min %.1f, max %.1f)", stats.jitter.average, stats.jitter.min, stats.jitter.max))
        func loss(_ direction: DirectionSummary?) -> String {
            guard let direction else { return "n/a" }
            return String(format: "%d of %d lost (%.2f %%)", direction.packetsLost, direction.packetsExpected, direction.packetsLostFraction)
        }
        lines.append("  Loss         uplink \(loss(report.uplink)), downlink \(loss(report.downlink))")
        if let pair = report.selectedIceCandidatePair {
            let local = pair.localCandidate
            let remote = pair.remoteCandidate
            lines.append(
                "  Connection   \(local.candidateType) \(local.ip):\(local.port) → \(remote.candidateType) \(remote.ip):\(remote.port) (\(local.protocol)), TURN \(report.isTurnRequired == true ? "required" : "not required")")
        }
        if let path = report.pathDiagnosis {
            lines.append("  Path         \(path.error.map { "not probed: \($0.message)" } ?? path.summary)")
        }
        let timing = report.networkTiming
        lines.append(
            "  Timing       signaling \(timing.signaling?.duration ?? 0) ms, ICE \(timing.iceConnection?.duration ?? 0) ms, peer connection \(timing.peerConnection?.duration ?? 0) ms")
        if let selection = report.edgeSelection {
            let figures = selection.candidates.map { candidate in
                "\(candidate.edge.isEmpty ? candidate.url : candidate.edge) "
                    + (candidate.rtt.map { String(format: "%.1f ms", $0) } ?? "unreachable")
            }
            lines.append("  Roaming      chose \(selection.selectedEdge) of \(figures.joined(separator: ", "))")
        }
        if let settlement = report.verdictSettlement {
            if settlement.settled {
                let continued = settlement.continuedToSeconds.map { String(format: " (went on to %.0f s)", $0) } ?? ""
                lines.append(
                    String(format: "  Adaptive     verdict settled after %.0f s of %.0f", settlement.afterSeconds, settlement.maximumSeconds)
                        + continued + ": " + settlement.reason)
            } else {
                // In plain words what it sits between; the judge's reason when nothing is recorded.
                lines.append(
                    String(format: "  Adaptive     not settled within the %.0f s maximum: ", settlement.maximumSeconds)
                        + (settlement.unsettled?.summary ?? settlement.reason))
            }
        }
        let raised = report.warnings.map(\.name)
        lines.append("  Warnings     \(raised.isEmpty ? "none raised" : raised.joined(separator: ", "))"
            + (report.warningsCleared.isEmpty ? "" : "; cleared: \(report.warningsCleared.map(\.name).joined(separator: ", "))"))
        return lines.joined(separator: "\n")
    }

    /// The codec, what a packet carried on average, and the MOS's standing for it: the E-model's
    /// figures hold for G.711; ITU-T G.113 has no impairment values for Opus, so its MOS is an estimate.
    static func codecLine(_ sample: StatsSample) -> String {
        let perPacket = sample.packetsSent > 0 ? sample.bytesSent / sample.packetsSent : 0
        let standing = AudioPayloadFormat.named(sample.codec) == .opus ? ", MOS an estimate (no ITU-T Ie value for Opus)" : ""
        return "  Codec        \(sample.codec), \(perPacket) B an RTP packet sent\(standing)"
    }
}
