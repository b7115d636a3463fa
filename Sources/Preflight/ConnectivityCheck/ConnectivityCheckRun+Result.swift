import Foundation
internal import PreflightCore
internal import PreflightNIO

extension ConnectivityCheckRun {
    /// The result of a check that has done nothing yet: its devices as the options name them.
    static func initialResult(options: ConnectivityCheckOptions, startTime: Int64) -> ConnectivityCheckResult {
        let camera = options.videoInput.map { input in
            DeviceTestOutcome(tested: input.isCamera, outcome: input.isCamera ? .failed : .notTested, source: input.name)
        } ?? DeviceTestOutcome(tested: false, outcome: .notTested, source: TestPatternVideoSource().name)
        let microphone = options.audioInput == nil
            ? DeviceTestOutcome(tested: false, outcome: .notTested, source: "test tone 440 Hz")
            : DeviceTestOutcome(tested: true, outcome: .failed, source: options.audioInputName)
        let speaker = options.audioOutput == nil
            ? DeviceTestOutcome(tested: false, outcome: .notTested, source: "none (measured only)")
            : DeviceTestOutcome(tested: true, outcome: .failed, source: options.audioOutputName)
        return ConnectivityCheckResult(
            testTimestamp: startTime, state: .starting, signallingReport: SignallingReport(), mediaServerReport: MediaServerReport(),
            deviceTestReport: DeviceTestReport(camera: camera, microphone: microphone, speaker: speaker), errors: [])
    }

    /// The result of a check that could not start (another one runs, options out of range).
    static func failedBeforeStart(_ error: PreflightError, options: ConnectivityCheckOptions) -> ConnectivityCheckResult {
        var result = initialResult(options: options, startTime: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        result.errors.append(ReportError(error))
        return result
    }

    static func cancelled(_ result: ConnectivityCheckResult) -> ConnectivityCheckResult {
        var result = result
        result.errors.append(ReportError(PreflightError(code: .cancelled, message: "connectivity check stopped")))
        return result
    }

    /// Fills the media report and the devices' outcomes from what the sessions measured.
    mutating func finishResult() {
        let end = mediaEnded ?? clock.now
        let duration = mediaStarted.map { max(0, (end - $0).inSeconds) } ?? 0
        result.mediaDuration = duration
        let sentAudio = audioOut.meter
        let sentVideo = videoOut.meter
        let receivedAudio = audioIn.meter
        let receivedVideo = videoIn.meter
        // RTT: the publish connection's RTCP round trips, both streams together.
        let trips = sentAudio.roundTrips.count + sentVideo.roundTrips.count
        let rtt = trips == 0 ? 0
            : (sentAudio.roundTrips.mean * Double(sentAudio.roundTrips.count) + sentVideo.roundTrips.mean * Double(sentVideo.roundTrips.count))
                / Double(trips)
        func stats(sent: CallMeter, received: CallMeter) -> TrackStats {
            let uplink = sent.uplinkTotals ?? sent.uplink
            let kbps = { (bytes: Int) in duration > 0 ? Double(bytes) * 8 / duration / 1000 : 0 }
            return TrackStats(
                bytesSent: Int64(sent.bytesSent), bytesReceived: Int64(received.bytesReceived),
                packetsReceived: Int64(received.packetsReceived),
                packetsLost: Int64(uplink.map { max(0, Int($0.expected) - Int($0.received)) } ?? 0), bitrateSent: kbps(sent.bytesSent),
                bitrateReceived: kbps(received.bytesReceived), roundTripTime: rtt.isFinite ? rtt : 0, packetsSent: Int64(sent.packetsSent),
                packetsLostDownlink: Int64(received.downlink.lost),
                jitter: received.downlink.jitterMilliseconds.isFinite ? received.downlink.jitterMilliseconds : 0)
        }
        let audio = stats(sent: sentAudio, received: receivedAudio)
        let video = stats(sent: sentVideo, received: receivedVideo)
        result.mediaServerReport.stats = MediaStats(audio: audio, video: video)
        let expected = sentAudio.packetsSent + sentVideo.packetsSent
        let received = receivedAudio.packetsReceived + receivedVideo.packetsReceived
        let lossPercent = expected > 0 ? max(0, Double(expected - received)) / Double(expected) * 100 : 100
        let jitter = max(audio.jitter, video.jitter)
        result.mediaServerReport.connectionQualityScore = received > 0 && trips > 0
            ? ConnectionQualityScore(mos: MeanOpinionScore.mos(rtt: rtt, jitter: jitter, packetLossPercent: lossPercent)) : .noData
        result.mediaServerReport.publishIceCandidatesGathered = publishICE.records().candidates.filter { !$0.isRemote }
        result.mediaServerReport.subscribeIceCandidatesGathered = subscribeICE.records().candidates.filter { !$0.isRemote }
        // Devices: a microphone passed when its audio went out, a speaker when audio came back
        // to it, a camera when its pictures were published.
        if result.deviceTestReport.microphone.tested {
            result.deviceTestReport.microphone.outcome = sentAudio.packetsSent > 0 ? .passed : .failed
        }
        if result.deviceTestReport.speaker.tested {
            result.deviceTestReport.speaker.outcome = receivedAudio.packetsReceived > 0 ? .passed : .failed
        }
        if result.deviceTestReport.camera.error == nil, let input = options.videoInput, input.isCamera {
            result.deviceTestReport.camera.outcome = result.state >= .mediaCaptured && sentVideo.packetsSent > 0 ? .passed : .failed
        }
    }
}
