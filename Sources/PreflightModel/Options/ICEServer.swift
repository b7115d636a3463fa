/// A STUN or TURN server the client may use, as the edge hands it out in `welcome`
/// (the shape of WebRTC's `RTCIceServer`).
public struct ICEServer: Sendable, Hashable, Codable {
    /// `stun:` / `turn:` / `turns:` URLs (RFC 7064, RFC 7065), e.g. `turn:198.18.0.3:3478?transport=udp`.
    public var urls: [String]
    /// The TURN username (for time-limited credentials `"<expiry>:<identity>"`).
    public var username: String?
    /// The TURN password.
    public var credential: String?

    /// Creates a server entry.
    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }
}
