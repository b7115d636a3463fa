import Hummingbird

/// What the edge's middleware learns about an HTTP request before its route runs: who it is for.
public struct EdgeRequestContext: RequestContext {
    /// Hummingbird's own part.
    public var coreContext: CoreRequestContextStorage
    /// The account of the API key that authenticated the request (HTTP Basic): the REST API, the
    /// pages, `/status` and `/metrics` (``APIKeyAuthentication``).
    var account: String?
    /// The claims of the access token that authenticated the request (`Bearer`): `/v1/init` and
    /// report uploads (``AccessTokenAuthentication``).
    var claims: AccessTokenClaims?

    /// A context for a new request.
    public init(source: Source) {
        coreContext = .init(source: source)
    }

    /// The owner a token-authenticated request acts for: its account and identity.
    var owner: StoreLedger.Owner? {
        claims.map { StoreLedger.Owner(account: $0.sub, identity: $0.grants.identity ?? "") }
    }
}
