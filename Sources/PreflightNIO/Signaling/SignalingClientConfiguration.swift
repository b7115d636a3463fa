import PreflightCore

/// The settings of a ``SignalingClient``.
public struct SignalingClientConfiguration: Sendable {
    /// The edge's signaling URL (`ws://` or `wss://`).
    public var url: String
    /// The access token the hello carries.
    public var accessToken: String
    /// The client's name and version in the hello: `preflight-swift/<version>` by default.
    public var clientName: String
    /// A PEM file of CA certificates to trust for `wss://` besides the system's: `nil` by default.
    public var trustedCertificatesFile: String?
    /// How long a request may wait for its response (the WebSocket, hello and welcome together
    /// for ``SignalingClient/connect()``): 10 s.
    public var timeout: Duration
    /// Whether a lost connection is replaced by a new one that resumes the session (when the
    /// edge's welcome offered a resume token): `false` by default. A call turns it on; a
    /// preflight test fails on a lost connection instead, as it always did.
    public var resumesSession: Bool
    /// How long the client keeps trying to resume a session: 10 s (the edge's default window).
    public var resumeTimeout: Duration

    /// Creates a configuration; every parameter has the default documented on its property.
    public init(
        url: String, accessToken: String, clientName: String = "preflight-swift/\(PreflightVersion.current)",
        trustedCertificatesFile: String? = nil, timeout: Duration = .seconds(10), resumesSession: Bool = false,
        resumeTimeout: Duration = .seconds(10)
    ) {
        self.url = url
        self.accessToken = accessToken
        self.clientName = clientName
        self.trustedCertificatesFile = trustedCertificatesFile
        self.timeout = timeout
        self.resumesSession = resumesSession
        self.resumeTimeout = resumeTimeout
    }
}
