extension PreflightError.Code {
    // MARK: Edge selection (Preflight's own range 70800–70899; docs/errors.md)

    /// 70801: roaming found no edge it could measure: every init endpoint refused or was
    /// unreachable, or no edge's media port answered a STUN Binding ping.
    public static let noEdgeReachable = Self(70801)
}
