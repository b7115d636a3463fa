/// What produced a report the edge stores: its `kind` in uploads, the REST API and the CLI.
public enum ReportKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Twilio's preflight test (``PreflightReport``).
    case preflightTest
    /// Agora's last-mile probe (`LastmileProbeResult`).
    case lastmileProbe
    /// 100ms's connectivity check (`ConnectivityCheckResult`).
    case connectivityCheck
    /// Telnyx's pre-call diagnosis (`PreCallDiagnosis`).
    case preCallDiagnosis
}
