extension PreflightError.Code {
    // MARK: Path diagnosis (Preflight's own range, 71000–71099; docs/errors.md)

    /// 71001: the path diagnosis could not probe: its socket could not be opened or could not ask
    /// for ICMP errors (`IP_RECVERR`), the platform has no way to read them, or the edge's media
    /// address is not known (the test never connected). The test goes on; its report's
    /// `pathDiagnosis` carries this error.
    public static let pathDiagnosisUnavailable = Self(71001)
    /// 71002: a path diagnosis option is out of range: a probe share outside 0.1–50 % of the test's
    /// packets, or a maximum hop count outside 1–64.
    public static let invalidPathDiagnosisOption = Self(71002)
}
