/// The limits on calls between clients and on the Insights events of calls: how fast a caller
/// may invite and a callee be rung (``CallRouter``), how many calls the Insights log remembers
/// and for whom (``CallEventLog``), and how fast a session and a call may post events.
///
/// Each rate is a token bucket (``TokenBucket``): `rate` a second sustained, bursts of `burst`.
/// The defaults leave real use far below every limit (docs/security.md, "Signaling", says why
/// each is what it is).
public struct CallLimits: Sendable, Hashable {
    /// Invites to a client (`client:<identity>`, or a route to one) that one caller (account and
    /// identity) places per second, sustained; 1 by default. An invite that rings nobody (31480,
    /// 31486) counts too, so that a caller cannot probe for registered identities faster. Test
    /// application calls (echo, record-playback) ring nobody and do not count: each takes a
    /// session of its own, bounded by the session limits. Over it the invite is refused with
    /// `error` 70108.
    public var callerInviteRate: Double
    /// The burst of ``callerInviteRate``; 10 by default (a person redialling a busy line, an
    /// app retrying, a test placing a few calls back to back).
    public var callerInviteBurst: Double
    /// Calls that ring one callee (account and identity: all its devices at once) per second,
    /// sustained, from all callers together; 1 by default. Only invites that would ring count.
    /// Over it the invite is refused with `error` 70108 and nothing rings.
    public var calleeRingRate: Double
    /// The burst of ``calleeRingRate``; 10 by default (several people calling one desk at once).
    public var calleeRingBurst: Double
    /// Callers, and callees, whose buckets are kept at once (each table its own); 10,000 by
    /// default. A full table forgets the parties whose bucket has refilled, at most once a
    /// second; parties that still find no room share one bucket (``SourceRateLimiter``).
    public var trackedInviteParties: Int

    /// Calls whose Insights the edge remembers, from all accounts; 20,000 by default. Past it
    /// the account holding the most calls loses one: its identity holding the most, that
    /// identity's oldest call first (``CallEventLog``).
    public var maximumLoggedCalls: Int
    /// Calls one account holds in that log; 10,000 by default. Past it the account loses the
    /// oldest call of its identity holding the most.
    public var maximumLoggedCallsPerAccount: Int
    /// Insights events one signaling session may post per second, to whichever calls, sustained;
    /// 10 by default. Events beyond are dropped and counted in their call's `dropped`; the
    /// session goes on.
    public var sessionInsightsRate: Double
    /// The burst of ``sessionInsightsRate``; 200 by default (two full `insights` messages: the
    /// SDK posts a call's setup, tens of events, at once).
    public var sessionInsightsBurst: Double
    /// Insights events one call may take per second from all its parties' sessions, sustained;
    /// 10 by default. Dropped and counted like the session's.
    public var callInsightsRate: Double
    /// The burst of ``callInsightsRate``; 200 by default.
    public var callInsightsBurst: Double

    /// Creates limits; see each property for its default.
    public init(
        callerInviteRate: Double = 1,
        callerInviteBurst: Double = 10,
        calleeRingRate: Double = 1,
        calleeRingBurst: Double = 10,
        trackedInviteParties: Int = 10_000,
        maximumLoggedCalls: Int = 20_000,
        maximumLoggedCallsPerAccount: Int = 10_000,
        sessionInsightsRate: Double = 10,
        sessionInsightsBurst: Double = 200,
        callInsightsRate: Double = 10,
        callInsightsBurst: Double = 200
    ) {
        self.callerInviteRate = callerInviteRate
        self.callerInviteBurst = callerInviteBurst
        self.calleeRingRate = calleeRingRate
        self.calleeRingBurst = calleeRingBurst
        self.trackedInviteParties = trackedInviteParties
        self.maximumLoggedCalls = maximumLoggedCalls
        self.maximumLoggedCallsPerAccount = maximumLoggedCallsPerAccount
        self.sessionInsightsRate = sessionInsightsRate
        self.sessionInsightsBurst = sessionInsightsBurst
        self.callInsightsRate = callInsightsRate
        self.callInsightsBurst = callInsightsBurst
    }
}
