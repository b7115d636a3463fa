import JWTKit

/// The claims of an access token, shaped like Twilio's access tokens ("Twilio Voice SDK: access
/// tokens", docs/references.md): the API
/// key as issuer, the account as subject, and grants for an identity and its voice application.
///
/// Times are JSON numbers of seconds since the Unix epoch (RFC 7519 NumericDate).
public struct AccessTokenClaims: JWTPayload, Sendable, Equatable {
    /// A unique identifier of the token (`"<API key sid>-<issue time>-<random>"`).
    public var jti: String
    /// The issuer: the API key sid whose secret signed the token.
    public var iss: String
    /// The subject: the account sid the token belongs to.
    public var sub: String
    /// When the token was issued, seconds since the epoch.
    public var iat: Double?
    /// The earliest time the token is accepted, seconds since the epoch.
    public var nbf: Double?
    /// When the token expires, seconds since the epoch.
    public var exp: Double?
    /// What the token allows.
    public var grants: Grants

    /// What a token allows.
    public struct Grants: Codable, Sendable, Equatable {
        /// The user's identity (the caller's name in calls and reports).
        public var identity: String?
        /// The voice grant: which application outgoing calls reach, whether incoming calls are allowed.
        public var voice: VoiceGrant?

        /// Creates grants.
        public init(identity: String? = nil, voice: VoiceGrant? = nil) {
            self.identity = identity
            self.voice = voice
        }
    }

    /// The voice grant (`grants.voice`).
    public struct VoiceGrant: Codable, Sendable, Equatable {
        /// Outgoing calls: the application they reach (the edge's test application).
        public var outgoing: Outgoing?
        /// Incoming calls.
        public var incoming: Incoming?

        /// Creates a voice grant.
        public init(outgoing: Outgoing? = nil, incoming: Incoming? = nil) {
            self.outgoing = outgoing
            self.incoming = incoming
        }

        /// `grants.voice.outgoing`.
        public struct Outgoing: Codable, Sendable, Equatable {
            /// The application sid outgoing calls are routed to (`application_sid` in JSON).
            public var applicationSID: String
            /// Parameters passed to the application.
            public var params: [String: String]?

            enum CodingKeys: String, CodingKey {
                case applicationSID = "application_sid"
                case params
            }

            /// Creates the outgoing grant.
            public init(applicationSID: String, params: [String: String]? = nil) {
                self.applicationSID = applicationSID
                self.params = params
            }
        }

        /// `grants.voice.incoming`.
        public struct Incoming: Codable, Sendable, Equatable {
            /// Whether the identity may receive calls.
            public var allow: Bool

            /// Creates the incoming grant.
            public init(allow: Bool) {
                self.allow = allow
            }
        }
    }

    /// Creates claims.
    public init(
        jti: String, iss: String, sub: String, iat: Double? = nil, nbf: Double? = nil, exp: Double?, grants: Grants
    ) {
        self.jti = jti
        self.iss = iss
        self.sub = sub
        self.iat = iat
        self.nbf = nbf
        self.exp = exp
        self.grants = grants
    }

    /// Part of jwt-kit's contract; the claims are checked by ``AccessTokenVerifier`` instead, so that
    /// each failure gets its own code.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
