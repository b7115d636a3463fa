import ArgumentParser
import PreflightCore

/// `--diagnose-path` and its settings: the test probes its path to the edge beside its media and
/// its report names the segment a problem starts in (`pathDiagnosis`).
public struct PathDiagnosisArguments: ParsableArguments, Sendable {
    @Flag(name: .customLong("diagnose-path"), help: "Probe the path to the edge hop by hop beside the test and name the segment a problem starts in.")
    public var diagnosePath = false

    @Option(name: .customLong("path-probe-share"), help: "The probes' most, in percent of the test's packets (0.1–50, default 5).")
    public var probeSharePercent: Double = 5

    @Option(name: .customLong("path-max-hops"), help: "The highest TTL probed (1–64, default 30).")
    public var maximumHops: Int = 30

    @Option(name: .customLong("private-network"), help: "An address block (address/prefix) counted as a home or office network beside RFC 1918's; repeatable, at most 64.")
    public var privateNetworks: [String] = []

    /// Creates the arguments (ArgumentParser requirement).
    public init() {}

    /// Checks the ranges and the blocks (given or not with `--diagnose-path`: `preflight path` implies it).
    public func validate() throws {
        let options = PathDiagnosisOptions(probeShare: probeSharePercent / 100, maximumHops: maximumHops, privateNetworks: privateNetworks)
        do {
            try options.validate()
            for text in options.privateNetworks { _ = try IPNetwork(text) }
        } catch {
            throw ValidationError("path diagnosis: \(error.message)")
        }
    }

    /// The test's options; `nil` without `--diagnose-path`.
    public var options: PathDiagnosisOptions? {
        guard diagnosePath else { return nil }
        return PathDiagnosisOptions(probeShare: probeSharePercent / 100, maximumHops: maximumHops, privateNetworks: privateNetworks)
    }
}
