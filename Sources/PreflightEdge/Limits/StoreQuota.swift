/// How much each identity and each account may add to the store in a window: bytes and rows
/// (reports and call events together), so that no token can grow a file or PostgreSQL store
/// without bound, and no identity can use up its account's share.
///
/// The rule, in full (a pure value; time is a parameter, seconds on a monotonic clock):
/// - Each identity (an account's, by its token) and each account has an allowance of
///   ``Limits/identityBytes`` and ``Limits/identityRows`` (the account's: ``Limits/accountBytes``,
///   ``Limits/accountRows``) per ``Limits/window``, refilled continuously: a token bucket as deep as
///   one window's allowance, full at first.
/// - Something of `bytes` in `rows` is stored only when both its identity's and its account's
///   allowances hold it (``admit(_:bytes:rows:at:)``), and then it is taken from both; a refusal
///   takes nothing, and says when the allowance that refused will hold it.
/// - The table is bounded (``capacity`` identities and as many accounts): an owner whose
///   allowances are full again is forgotten (that changes nothing), at most once a second when the
///   table is full; owners that still find no room share one allowance, so a full table never
///   grows and never resets anyone's allowance.
///
/// Each edge keeps its own: with many edges on one PostgreSQL, an identity may store its allowance
/// on each edge it reaches (clients test against the nearest edge, so usually one).
public struct StoreQuota: Sendable {
    /// The allowances.
    public struct Limits: Sendable, Hashable {
        /// Bytes one identity may store per window (each row counted as ``ReportStore`` counts it);
        /// 16 MiB by default.
        public var identityBytes: Int
        /// Rows (reports and call events) one identity may store per window; 10,000 by default.
        public var identityRows: Int
        /// Bytes one account may store per window; 1 GiB by default.
        public var accountBytes: Int
        /// Rows one account may store per window; 1,000,000 by default.
        public var accountRows: Int
        /// The window; one hour by default.
        public var window: Duration

        /// Creates limits; see each property for its default.
        public init(
            identityBytes: Int = 16 << 20, identityRows: Int = 10_000, accountBytes: Int = 1 << 30, accountRows: Int = 1_000_000,
            window: Duration = .seconds(3600)
        ) {
            self.identityBytes = identityBytes
            self.identityRows = identityRows
            self.accountBytes = accountBytes
            self.accountRows = accountRows
            self.window = window
        }
    }

    /// Whose allowance refused.
    public enum Scope: String, Sendable, Hashable {
        case identity, account
    }

    /// What ``admit(_:bytes:rows:at:)`` decided.
    public enum Decision: Sendable, Hashable {
        /// Stored: taken from both allowances.
        case admitted
        /// Refused by `scope`'s allowance, which holds it again in `retryAfter` seconds (infinite
        /// for something larger than a whole window's allowance).
        case refused(Scope, retryAfter: Double)
    }

    /// One owner's allowance: bytes and rows, each a bucket.
    struct Allowance: Sendable {
        var bytes: Double
        var rows: Double
        var last: Double
    }

    public let limits: Limits
    /// Owners tracked at most, in each of the two tables.
    public let capacity: Int
    private var identities: [StoreLedger.Owner: Allowance] = [:]
    private var accounts: [String: Allowance] = [:]
    private var overflowIdentity: Allowance?
    private var overflowAccount: Allowance?
    private var lastSweep = -Double.infinity

    /// Creates empty tables.
    public init(limits: Limits = Limits(), capacity: Int = 100_000) {
        self.limits = limits
        self.capacity = max(1, capacity)
    }

    private var windowSeconds: Double {
        max(1e-3, Double(limits.window.components.seconds) + Double(limits.window.components.attoseconds) / 1e18)
    }

    /// Stores `bytes` in `rows` for `owner` at `now` if both allowances hold it.
    mutating func admit(_ owner: StoreLedger.Owner, bytes: Int, rows: Int, at now: Double) -> Decision {
        let window = windowSeconds
        let identityLimit = (bytes: Double(limits.identityBytes), rows: Double(limits.identityRows))
        let accountLimit = (bytes: Double(limits.accountBytes), rows: Double(limits.accountRows))
        sweepIfFull(at: now)
        var identity = Self.refilled(
            identities[owner] ?? (identities.count < capacity ? nil : overflowIdentity), limit: identityLimit, window: window, at: now)
        var account = Self.refilled(
            accounts[owner.account] ?? (accounts.count < capacity ? nil : overflowAccount), limit: accountLimit, window: window, at: now)
        let want = (bytes: Double(max(0, bytes)), rows: Double(max(0, rows)))
        if let wait = Self.wait(for: want, in: identity, limit: identityLimit, window: window) {
            return .refused(.identity, retryAfter: wait)
        }
        if let wait = Self.wait(for: want, in: account, limit: accountLimit, window: window) {
            return .refused(.account, retryAfter: wait)
        }
        identity.bytes -= want.bytes
        identity.rows -= want.rows
        account.bytes -= want.bytes
        account.rows -= want.rows
        if identities[owner] != nil || identities.count < capacity { identities[owner] = identity } else { overflowIdentity = identity }
        if accounts[owner.account] != nil || accounts.count < capacity { accounts[owner.account] = account } else { overflowAccount = account }
        return .admitted
    }

    /// Owners tracked now (identities, accounts).
    public var count: (identities: Int, accounts: Int) { (identities.count, accounts.count) }

    /// An allowance brought up to `now` (a new one is full).
    private static func refilled(_ allowance: Allowance?, limit: (bytes: Double, rows: Double), window: Double, at now: Double) -> Allowance {
        guard var allowance else { return Allowance(bytes: limit.bytes, rows: limit.rows, last: now) }
        let elapsed = max(0, now - allowance.last)
        allowance.bytes = min(limit.bytes, allowance.bytes + elapsed * limit.bytes / window)
        allowance.rows = min(limit.rows, allowance.rows + elapsed * limit.rows / window)
        allowance.last = max(allowance.last, now)
        return allowance
    }

    /// `nil` when `allowance` holds `want`; else the seconds until it will.
    private static func wait(
        for want: (bytes: Double, rows: Double), in allowance: Allowance, limit: (bytes: Double, rows: Double), window: Double
    ) -> Double? {
        guard want.bytes > allowance.bytes || want.rows > allowance.rows else { return nil }
        guard want.bytes <= limit.bytes, want.rows <= limit.rows else { return .infinity }
        let bytes = limit.bytes > 0 ? (want.bytes - allowance.bytes) / limit.bytes * window : 0
        let rows = limit.rows > 0 ? (want.rows - allowance.rows) / limit.rows * window : 0
        return max(bytes, rows, 0)
    }

    /// Forgets owners whose allowances are full again, when a table is full (at most once a second).
    private mutating func sweepIfFull(at now: Double) {
        guard identities.count >= capacity || accounts.count >= capacity, now - lastSweep >= 1 else { return }
        lastSweep = now
        let window = windowSeconds
        identities = identities.filter { now - $0.value.last < window }
        accounts = accounts.filter { now - $0.value.last < window }
    }
}
