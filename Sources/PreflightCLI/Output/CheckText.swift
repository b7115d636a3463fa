import Foundation
import PreflightCore

/// The connectivity check's result as `preflight check` prints it.
enum CheckText {
    static func summary(_ result: ConnectivityCheckResult) -> String {
        let media = result.mediaServerReport
        func yes(_ value: Bool) -> String { value ? "yes" : "no" }
        func pair(_ pair: ICECandidatePairStats?) -> String {
            guard let pair else { return "none" }
            return "\(pair.localCandidate.candidateType.rawValue) \(pair.localCandidate.ip):\(pair.localCandidate.port) → "
                + "\(pair.remoteCandidate.candidateType.rawValue) \(pair.remoteCandidate.ip):\(pair.remoteCandidate.port)"
        }
        func stats(_ name: String, _ stats: TrackStats) -> String {
            String(
                format: "%@: sent %lld packets (%lld B, %.1f kbps), received %lld (%lld B, %.1f kbps), lost up %lld, down %lld, jitter %.2f ms",
                name, stats.packetsSent, stats.bytesSent, stats.bitrateSent, stats.packetsReceived, stats.bytesReceived, stats.bitrateReceived,
                stats.packetsLost, stats.packetsLostDownlink, stats.jitter)
        }
        func device(_ name: String, _ outcome: DeviceTestOutcome) -> String {
            "\(name): \(outcome.outcome.rawValue) (\(outcome.source))" + (outcome.error.map { ", error \($0.code): \($0.message)" } ?? "")
        }
        var lines = [
            "state: \(result.state)" + (result.edge.isEmpty ? "" : ", edge \(result.edge)") + (result.codec.isEmpty ? "" : ", \(result.codec)"),
            "signalling: init \(yes(result.signallingReport.isInitConnected)), connected \(yes(result.signallingReport.isConnected))"
                + (result.signallingReport.websocketUrl.isEmpty ? "" : ", \(result.signallingReport.websocketUrl)"),
            "publish: ICE \(yes(media.isPublishICEConnected)), \(media.publishIceCandidatesGathered.count) candidates, \(pair(media.publishICECandidatePairSelected))",
            "subscribe: ICE \(yes(media.isSubscribeICEConnected)), \(media.subscribeIceCandidatesGathered.count) candidates, \(pair(media.subscribeICECandidatePairSelected))",
            String(format: "round-trip time %.1f ms, connection quality %.2f of 5", media.stats.audio.roundTripTime, media.connectionQualityScore.value),
            stats("audio", media.stats.audio),
            stats("video", media.stats.video),
            device("camera", result.deviceTestReport.camera),
            device("microphone", result.deviceTestReport.microphone),
            device("speaker", result.deviceTestReport.speaker),
        ]
        for error in result.errors { lines.append("error \(error.code): \(error.message)") }
        return lines.joined(separator: "\n")
    }
}
