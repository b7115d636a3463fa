/// How a preflight test diagnoses its path (`PreflightOptions.pathDiagnosis`): UDP probes toward
/// the edge's media address with TTL 1, 2, 3…, beside the test, within a share of its packets.
public struct PathDiagnosisOptions: Sendable, Hashable {
    /// The probes' most, as a share of the test's packets (50 a second each way for its
    /// duration): 0.05 (5 %) by default, 0.001–0.5. A 10 s test sends at most 50 probes.
    public var probeShare: Double
    /// The highest TTL probed: 30 by default, 1–64.
    public var maximumHops: Int
    /// Address blocks counted as a home or office network beside RFC 1918's (an office numbered
    /// from public space), `address/prefix`; empty by default.
    public var privateNetworks: [String]

    /// Creates options; see each property for its default.
    public init(probeShare: Double = 0.05, maximumHops: Int = 30, privateNetworks: [String] = []) {
        self.probeShare = probeShare
        self.maximumHops = maximumHops
        self.privateNetworks = privateNetworks
    }

    /// The test's packets a second the share is of: 50 sent and 50 received.
    public static let testPacketsPerSecond = 100.0

    /// The probe budget of a test of `seconds`: the share of 90 % of its packets, a margin for
    /// what the test does not send (its first moments, and the echoes of packets lost on the way
    /// up: up to 20 % of them).
    public func probeBudget(seconds: Double) -> Int {
        max(1, Int((probeShare * Self.testPacketsPerSecond * seconds * 0.9).rounded(.down)))
    }

    /// Checks the ranges (71002).
    public func validate() throws(PreflightError) {
        guard probeShare.isFinite, (0.001...0.5).contains(probeShare) else {
            throw PreflightError(code: .invalidPathDiagnosisOption, message: "the probe share must be 0.001–0.5, got \(probeShare)")
        }
        guard (1...64).contains(maximumHops) else {
            throw PreflightError(code: .invalidPathDiagnosisOption, message: "the maximum hop count must be 1–64, got \(maximumHops)")
        }
        guard privateNetworks.count <= 64 else {
            throw PreflightError(code: .invalidPathDiagnosisOption, message: "at most 64 private networks, got \(privateNetworks.count)")
        }
    }
}
