extension PreflightError.Code {
    // MARK: Reports and Insights storage (Preflight's own range 70700–70799; docs/errors.md)

    /// 70701: the edge's store cannot be opened, migrated or queried (a bad `--database`, an
    /// unreachable PostgreSQL server, a full disk).
    public static let storeUnavailable = Self(70701)
    /// 70702: an uploaded report was refused: not a JSON object of a known kind, over the size cap,
    /// or a sid that is not one.
    public static let reportRejected = Self(70702)
    /// 70703: a report with the same sid is already stored for the account.
    public static let reportConflict = Self(70703)
    /// 70704: the client could not upload its report (nothing listening, a timeout, the edge
    /// refused it); the test's own result is unaffected.
    public static let reportUploadFailed = Self(70704)
    /// 70705: no report or call with that sid is stored for the API key's account.
    public static let reportNotFound = Self(70705)
    /// 70706: the account uploads or queries faster than the edge allows.
    public static let reportRateLimited = Self(70706)
    /// 70707: a query parameter of the REST API is out of range or not of its type.
    public static let invalidQuery = Self(70707)
    /// 70708: the identity or its account stored as much as the edge allows in a window (bytes or
    /// rows of reports and call events); the upload is refused, events are dropped and counted.
    public static let storeQuotaExceeded = Self(70708)
}
