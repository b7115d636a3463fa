import Hummingbird
import PreflightCore
import Synchronization

/// How fast the HTTP API's callers may go, each in a bucket of its own, so that one caller never
/// spends another's: an end user's uploads never lock the account's admin out of the API, and
/// one identity's uploads never silence another's (docs/security.md).
public struct EdgeRateLimits: Sendable, Hashable {
    /// A sustained rate with its burst.
    public struct Rate: Sendable, Hashable {
        /// Requests per second, sustained.
        public var perSecond: Double
        /// The largest burst.
        public var burst: Double

        /// Creates a rate.
        public init(perSecond: Double, burst: Double) {
            self.perSecond = perSecond
            self.burst = burst
        }
    }

    /// API-key requests (the REST API, the pages, `/status`, `/metrics`) per account: 20 a second,
    /// bursts of 200.
    public var apiRequests: Rate
    /// Report uploads per identity, each attempt that reaches its body (accepted or not): 1 a
    /// second, bursts of 30.
    public var identityUploads: Rate
    /// Report uploads per account that passed validation (stored, or a sid conflict): 100 a
    /// second, bursts of 1000.
    public var accountUploads: Rate
    /// `/v1/init` requests per identity: 1 a second, bursts of 30 (a roaming client asks each
    /// of up to 16 edges once).
    public var identityInits: Rate

    /// Creates limits; see each property for its default.
    public init(
        apiRequests: Rate = Rate(perSecond: 20, burst: 200), identityUploads: Rate = Rate(perSecond: 1, burst: 30),
        accountUploads: Rate = Rate(perSecond: 100, burst: 1000), identityInits: Rate = Rate(perSecond: 1, burst: 30)
    ) {
        self.apiRequests = apiRequests
        self.identityUploads = identityUploads
        self.accountUploads = accountUploads
        self.identityInits = identityInits
    }
}

/// The buckets of ``EdgeRateLimits``: one bounded table of token buckets per kind of caller
/// (``SourceRateLimiter``: 10,000 keys each, idle ones forgotten, newcomers beyond sharing one).
final class RequestRateLimiter: Sendable {
    /// Which bucket a request spends.
    enum Kind: Sendable {
        case apiRequest, identityUpload, accountUpload, identityInit
    }

    private struct Tables {
        var apiRequests: SourceRateLimiter<String>
        var identityUploads: SourceRateLimiter<String>
        var accountUploads: SourceRateLimiter<String>
        var identityInits: SourceRateLimiter<String>
    }

    private let tables: Mutex<Tables>
    private let epoch = ContinuousClock.now

    init(_ limits: EdgeRateLimits, capacity: Int = 10_000) {
        func table(_ rate: EdgeRateLimits.Rate) -> SourceRateLimiter<String> {
            SourceRateLimiter(rate: rate.perSecond, burst: rate.burst, capacity: capacity)
        }
        tables = Mutex(Tables(
            apiRequests: table(limits.apiRequests), identityUploads: table(limits.identityUploads),
            accountUploads: table(limits.accountUploads), identityInits: table(limits.identityInits)))
    }

    /// Takes a token from `key`'s bucket of `kind`.
    /// - Returns: whether the request may go on.
    func allow(_ kind: Kind, key: String) -> Bool {
        let elapsed = epoch.duration(to: .now)
        let now = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return tables.withLock { tables in
            switch kind {
            case .apiRequest: tables.apiRequests.allow(key, at: now)
            case .identityUpload: tables.identityUploads.allow(key, at: now)
            case .accountUpload: tables.accountUploads.allow(key, at: now)
            case .identityInit: tables.identityInits.allow(key, at: now)
            }
        }
    }

    /// Takes a token, or throws the 429 refusal.
    /// - Throws: ``PreflightError`` `.reportRateLimited`.
    func spend(_ kind: Kind, key: String) throws(PreflightError) {
        guard allow(kind, key: key) else {
            let who =
                switch kind {
                case .apiRequest: "this account's API requests"
                case .identityUpload: "this identity's uploads"
                case .accountUpload: "this account's uploads"
                case .identityInit: "this identity's init requests"
                }
            throw PreflightError(code: .reportRateLimited, message: "too many requests: \(who) are over their rate; slow down")
        }
    }

    /// The key of an identity of an account.
    static func key(_ owner: StoreLedger.Owner) -> String {
        owner.account + "\u{0}" + owner.identity
    }
}

/// Spends a bucket of ``RequestRateLimiter`` for each request of a route group, once its caller is
/// authenticated: 429 with 70706 past it.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = EdgeRequestContext
    let limiter: RequestRateLimiter
    let kind: RequestRateLimiter.Kind

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let key =
            switch kind {
            case .apiRequest, .accountUpload: context.account ?? context.claims?.sub
            case .identityUpload, .identityInit: context.owner.map(RequestRateLimiter.key)
            }
        if let key { try limiter.spend(kind, key: key) }
        return try await next(request, context)
    }
}
