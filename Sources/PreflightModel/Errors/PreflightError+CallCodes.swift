extension PreflightError.Code {
    // MARK: Calls and signaling (Twilio's published codes where one exists)

    /// 31000: a general call error the edge reported without a more specific code.
    public static let generalCallError = Self(31000)
    /// 31002: the call was declined: the token's application is not one the edge serves.
    public static let callDeclined = Self(31002)
    /// 31005: the edge hung up the call with an error, or the call's media could not start.
    public static let connectionError = Self(31005)
    /// 31404: the call's `To` names no one: not a `client:` identity, nor a number or name in the
    /// edge's route table, or the dial application got no `To` (SIP 404 "Not Found").
    public static let calleeNotFound = Self(31404)
    /// 31480: the callee did not answer: no device of its identity is registered, or none
    /// answered within the ring timeout (SIP 480 "Temporarily Unavailable").
    public static let calleeUnavailable = Self(31480)
    /// 31486: every registered device of the callee is already in a call (SIP 486 "Busy Here").
    public static let calleeBusy = Self(31486)
    /// 31603: the callee rejected the call on every device that rang (SIP 603 "Decline").
    public static let callRejected = Self(31603)
    /// 31209: a call message's content is larger than 10 KB ("Call Message Event Payload Size
    /// Exceeded").
    public static let callMessageTooLarge = Self(31209)
    /// 31210: a call message's type is not `user-defined-message`.
    public static let callMessageTypeInvalid = Self(31210)
    /// 31211: a call message was sent while the call was not connected to another party.
    public static let callMessageUnexpectedState = Self(31211)
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
    /// 70106: a call reached the edge's maximum call duration (4 hours by default) and the edge
    /// hung up both parties.
    public static let callDurationExceeded = Self(70106)
    /// 70107: more than 10 call messages within one minute.
    public static let callMessageRateLimited = Self(70107)
    /// 70108: an invite to a client was refused: its caller invites, or its callee is rung, more
    /// often than the edge allows (1 a second with bursts of 10 each by default); nothing rang.
    public static let inviteRateLimited = Self(70108)
    /// 70109: the edge is draining before it stops: it takes no new session, and ends the
    /// sessions it has once they are in no call (or at its drain limit). Register or call on
    /// another edge.
    public static let edgeDraining = Self(70109)
}
