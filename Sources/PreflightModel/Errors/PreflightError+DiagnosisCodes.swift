extension PreflightError.Code {
    // MARK: Telnyx's pre-call diagnosis (Preflight's own range 70500–70599; docs/errors.md)

    /// 70501: Telnyx's `destinationNumberIsRequired`: a pre-call diagnosis without a test number.
    public static let destinationNumberIsRequired = Self(70501)
    /// 70502: Telnyx's `sessionIdIsRequired`: a pre-call diagnosis on a client that is not
    /// connected (its registration ended).
    public static let sessionIdIsRequired = Self(70502)
    /// 70503: Telnyx's `noMetricsCollected`: the diagnosis call ended before its first sample.
    public static let noMetricsCollected = Self(70503)
    /// Telnyx's `callNotFound`: the edge routes the test number nowhere. The same code as
    /// ``calleeNotFound`` (31404), which the edge sends.
    public static let callNotFound = calleeNotFound
    /// Telnyx's `socketConnectionFailed`: the signaling server cannot be reached. The same code
    /// as ``signalingConnectionError`` (53000).
    public static let socketConnectionFailed = signalingConnectionError
}
