extension PreflightError.Code {
    // MARK: Calls and signaling (Twilio's published codes where one exists)

    /// 31000: a general call error the edge reported without a more specific code.
    public static let generalCallError = Self(31000)
    /// 31002: the call was declined: the token's application is not one the edge serves.
    public static let callDeclined = Self(31002)
    /// 31005: the edge hung up the call with an error, or the call's media could not start.
    public static let connectionError = Self(31005)
    /// 53000: the signaling connection could not be established (no edge listening, refused, bad URL).
    public static let signalingConnectionError = Self(53000)
    /// 53001: the signaling connection was closed while the test was running.
    public static let signalingDisconnected = Self(53001)
    /// 53002: the edge did not answer within the signaling timeout.
    public static let signalingTimeout = Self(53002)
    /// 53405: media could not connect (no ICE check answered) or stopped flowing.
    public static let mediaConnectionFailed = Self(53405)

    // MARK: Edge limits (Preflight's own range)

    /// 70101: the edge is serving its maximum number of sessions.
    public static let edgeAtCapacity = Self(70101)
    /// 70102: the test reached the edge's maximum test duration.
    public static let testDurationExceeded = Self(70102)
    /// 70103: none of the offered codecs is one the edge speaks.
    public static let unsupportedCodec = Self(70103)
    /// 70104: the token's identity or account already holds as many sessions as the edge allows
    /// it (``edgeAtCapacity`` is the edge's limit in all).
    public static let sessionLimitReached = Self(70104)
    /// 70105: a `resume` named no session that this connection may continue: unknown, its resume
    /// window over, its token wrong, or still attached to a live connection (one answer for all,
    /// so that it tells nothing about which).
    public static let sessionResumeRefused = Self(70105)
}
