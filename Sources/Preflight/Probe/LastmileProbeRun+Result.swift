internal import PreflightCore
import Synchronization

extension LastmileProbeRun {
    /// Every 2 s: the rating of what was measured so far (NetworkQuality's RTT, jitter and loss
    /// rules), capped by the bandwidth once known: under the expected bitrate at best `poor`,
    /// under half of it at best `bad` (docs/measurement.md, "Bandwidth").
    mutating func rateQuality() {
        let now = seconds()
        var quality = NetworkQuality.unknown
        if connected {
            let measured = measuredSoFar()
            quality = NetworkQuality(
                rtt: rttEstimate ?? 0, jitter: measured.jitter, packetLossPercent: measured.loss, packetsReceived: packetsInWindow)
            for report in finished.values where report.state == .complete && !report.atLeastExpected {
                let ratio = report.availableBandwidth * 1000 / Double(max(1, report.expectedBitrate))
                if ratio < 0.5 {
                    quality = quality.atBest(.bad)
                } else if ratio < 1 {
                    quality = quality.atBest(.poor)
                }
            }
        }
        packetsInWindow = 0
        qualities.append(LastmileQualitySample(time: now, quality: quality))
        probe.emit(quality: quality)
    }

    /// The worst jitter (ms) and loss (%) of the directions so far, before their knees.
    func measuredSoFar() -> (jitter: Double, loss: Double) {
        var jitter = 0.0
        var loss = 0.0
        for report in finished.values {
            jitter = max(jitter, report.jitter)
            loss = max(loss, report.packetLossRate)
        }
        if let current {
            let (arrivals, controller) = current.state.withLock { ($0.arrivals, $0.controller) }
            if arrivals.count >= 2 {
                let estimate = BandwidthEstimator.estimate(
                    arrivals, expectedBitrate: Double(current.expectedBitrate), hold: hold(of: current, controller))
                jitter = max(jitter, estimate.jitterMilliseconds)
                loss = max(loss, estimate.lossPercent)
            }
        }
        return (jitter, loss)
    }

    /// The RTT: the median of the pings sent before any train, else of all pings; `nil` without any.
    var rttEstimate: Double? {
        let samples = (quietRTTs.isEmpty ? rtts : quietRTTs).sorted()
        guard !samples.isEmpty else { return nil }
        return samples[samples.count / 2]
    }

    /// The result: a report per direction asked for (``LastmileProbeResultState/unavailable`` for one
    /// that never ran), and the error that ended the probe early, if any.
    func result(error: PreflightError?) -> LastmileProbeResult {
        var result = LastmileProbeResult(
            rtt: rttEstimate ?? 0, edge: edgeName, loopback: loopback, qualities: qualities, duration: seconds(),
            error: error.map(ReportError.init))
        func report(_ way: ProbeDirection.Way, expected: Int) -> LastmileProbeOneWayResult {
            finished[way] ?? LastmileProbeOneWayResult(state: .unavailable, expectedBitrate: expected, reason: error?.message ?? "not probed")
        }
        var networks = networks
        networks.finish(now: RunNetworks.now())
        result.networkChanges = networks.records.isEmpty ? nil : networks.records
        if config.probeUplink { result.uplinkReport = report(.uplink, expected: config.expectedUplinkBitrate) }
        if config.probeDownlink { result.downlinkReport = report(.downlink, expected: config.expectedDownlinkBitrate) }
        let states = [result.uplinkReport, result.downlinkReport].compactMap { $0?.state }
        if states.allSatisfy({ $0 == .unavailable }) {
            result.state = .unavailable
        } else if states.allSatisfy({ $0 == .complete }) {
            result.state = .complete
        } else {
            result.state = .incompleteNoBwe
        }
        return result
    }
}
