import Foundation
import PreflightModel

/// One pre-call diagnosis: a call placed with the registration's token and edge, held
/// `duration` seconds once connected, then hung up; its samples make the ``PreCallDiagnosis``.
struct PreCallDiagnosisRun {
    let registration: Registration
    let params: [String: String]
    let duration: Double

    func run() async -> PreCallDiagnosisState {
        let options = registration.options
        let clock = options.clock
        var callOptions = CallOptions()
        callOptions.clock = clock
        // A diagnosis measures this network: with none left it ends at once (70902).
        callOptions.endsWithoutNetwork = true
        let call = Voice.connect(
            options: ConnectOptions(
                accessToken: options.accessToken, edgeURL: registration.edgeURL, params: params,
                edgeTrustedCertificatesFile: options.edgeTrustedCertificatesFile, signalingTimeout: options.signalingTimeout,
                signalingResumeTimeout: options.signalingResumeTimeout, callOptions: callOptions),
            logger: registration.logger)
        let events = call.events()
        var samples: [StatsSample] = []
        var hangUp: Task<Void, Never>?
        var ending: PreflightError?
        await withTaskCancellationHandler {
            for await event in events {
                switch event {
                case .connected where hangUp == nil:
                    // A sample is taken each second from the connection: a quarter second more lets
                    // the last one of the duration in before the hangup.
                    let deadline = clock.now + .milliseconds(Int64((duration + 0.25) * 1000))
                    hangUp = Task {
                        guard (try? await clock.sleep(until: deadline)) != nil else { return }
                        call.disconnect()
                    }
                case .sample(let sample):
                    samples.append(sample)
                case .failedToConnect(let error):
                    ending = error
                case .disconnected(let error):
                    ending = ending ?? error
                default:
                    break
                }
                if event.isFinal { break }
            }
        } onCancel: {
            call.disconnect()
        }
        hangUp?.cancel()
        if Task.isCancelled {
            return .failed(PreflightError(code: .cancelled, message: "pre-call diagnosis: cancelled (the client disconnected)"))
        }
        if let ending { return .failed(ending) }
        guard !samples.isEmpty else {
            return .failed(PreflightError(code: .noMetricsCollected, message: "pre-call diagnosis: the call ended before its first sample"))
        }
        var diagnosis = Self.diagnosis(samples, candidates: call.iceCandidates)
        let changes = call.networkChanges
        diagnosis.networkChanges = changes.isEmpty ? nil : changes
        await uploadReport(
            diagnosis, kind: .preCallDiagnosis,
            options: ReportUploadOptions(
                enabled: options.uploadsReport, edgeURL: registration.edgeURL, accessToken: options.accessToken,
                trustedCertificatesFile: options.edgeTrustedCertificatesFile, signalingTimeout: options.signalingTimeout),
            logger: registration.logger)
        return .completed(diagnosis)
    }

    /// The diagnosis of a call's samples: means and extremes over them, totals from the last.
    static func diagnosis(_ samples: [StatsSample], candidates: [ICECandidateStats]) -> PreCallDiagnosis {
        let scores = samples.map(\.mos).filter { $0.isFinite && $0 >= 1 }
        let last = samples[samples.count - 1]
        let expected = (last.uplink?.packetsExpected ?? 0) + (last.downlink?.packetsExpected ?? 0)
        let lost = (last.uplink?.packetsLost ?? 0) + (last.downlink?.packetsLost ?? 0)
        return PreCallDiagnosis(
            mos: scores.isEmpty ? 0 : scores.reduce(0, +) / Double(scores.count),
            jitter: MetricSummary(milliseconds: samples.map(\.jitter)), rtt: MetricSummary(milliseconds: samples.map(\.rtt)),
            bytesSent: Int64(last.bytesSent), bytesReceived: Int64(last.bytesReceived), packetsSent: Int64(last.packetsSent),
            packetsReceived: Int64(last.packetsReceived), iceCandidates: candidates,
            packetLossPercent: expected > 0 ? 100 * Double(lost) / Double(expected) : 0, codec: last.codec)
    }
}
