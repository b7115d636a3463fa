/// The ICE credentials of one media session on the edge (RFC 8445 §5.3): the edge is ICE-lite, so
/// it only answers the client's Binding checks, authenticated with its own password.
public struct ICELiteCredentials: Sendable, Hashable {
    /// The edge's username fragment for this session.
    public var localUfrag: String
    /// The edge's password: the short-term key of the checks it answers.
    public var localPassword: String
    /// The client's username fragment (the checks' USERNAME is `local:remote`).
    public var remoteUfrag: String

    /// Creates credentials.
    public init(localUfrag: String, localPassword: String, remoteUfrag: String) {
        self.localUfrag = localUfrag
        self.localPassword = localPassword
        self.remoteUfrag = remoteUfrag
    }
}
