extension PreflightError.Code {
    // MARK: 100ms's connectivity check (Preflight's own range 70600–70699; docs/errors.md)

    /// 70601: the init endpoint could not be reached, or answered something that is not its
    /// JSON (a refused token is the token's own code, 20101…20107, from the endpoint's 401).
    public static let initFailed = Self(70601)
    /// 70602: a connectivity check is already running on this `Diagnostics`.
    public static let connectivityCheckInProgress = Self(70602)
    /// 70603: media went out on the publish connection but none came back on the subscribe
    /// connection within the check.
    public static let subscribeMediaMissing = Self(70603)
}
