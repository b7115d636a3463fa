internal import PreflightCore
internal import PreflightNIO

/// A preflight test's path diagnosis: the probing started when media starts, and its verdict
/// once the test's own figures for the destination are known.
struct PathDiagnosisRun: Sendable {
    let options: PathDiagnosisOptions
    let verdict: PathVerdict
    private let probing: Task<PathProbeOutcome, Never>

    /// Starts probing the edge's media address of `pair` for `seconds`.
    init(options: PathDiagnosisOptions, pair: ICECandidatePairStats, seconds: Double) throws(PreflightError) {
        self.options = options
        verdict = PathVerdict(configuration: try options.verdictConfiguration())
        let host = pair.remoteCandidate.ip
        let port = UInt16(clamping: pair.remoteCandidate.port)
        let prober = PathProber.Configuration(maximumHops: options.maximumHops, probeBudget: options.probeBudget(seconds: seconds), duration: seconds)
        let verdict = verdict
        probing = Task { await PathProbing.run(host: host, port: port, configuration: prober, focus: { verdict.focusHops($0) }) }
    }

    /// Stops the probing (what is still waiting for an answer counts as lost) and returns what it saw.
    func finish() async -> PathProbeOutcome {
        probing.cancel()
        return await probing.value
    }

    /// The diagnosis of `outcome`, with `report`'s figures for the destination and
    /// `localNetwork` (the selected pair's network type) naming the first segment.
    func diagnosis(_ outcome: PathProbeOutcome, report: PreflightReport) -> PathDiagnosis {
        func loss(_ summary: DirectionSummary?) -> Double { (summary?.packetsLostFraction ?? 0) / 100 }
        let up = report.uplink, down = report.downlink
        // What the test and the edge sent each other (what was lost was sent too).
        let packets = (up?.packetsExpected ?? 0) + (down?.packetsExpected ?? 0)
        if let error = outcome.error {
            return PathDiagnosis(
                destination: outcome.destination, summary: "The path could not be probed: \(error.message)", testPackets: packets,
                error: ReportError(error))
        }
        let destination = PathVerdict.Destination(
            lossUp: loss(up), lossDown: loss(down), jitter: max(up?.jitter.average ?? 0, down?.jitter.average ?? 0), packets: packets)
        let localNetwork = report.selectedIceCandidatePair.flatMap { NetworkType(rawValue: $0.localCandidate.networkType) }
        return verdict.diagnose(
            hops: outcome.hops, destinationAddress: outcome.destination, destination: destination, localNetwork: localNetwork,
            probesSent: outcome.probesSent, answersReceived: outcome.answersReceived)
    }
}

extension PathDiagnosisOptions {
    /// The verdict's settings for these options, checked as a test checks them before it starts:
    /// the ranges (``validate()``) and each private network's block (71002 for either).
    func verdictConfiguration() throws(PreflightError) -> PathVerdict.Configuration {
        try validate()
        var configuration = PathVerdict.Configuration()
        for text in privateNetworks { configuration.privateNetworks.append(try IPNetwork(text)) }
        return configuration
    }
}
