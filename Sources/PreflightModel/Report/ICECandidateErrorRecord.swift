/// A STUN or TURN server that could not give a candidate, in the shape of WebRTC's
/// `RTCPeerConnectionIceErrorEvent`: the report's added `iceCandidateErrors` field.
public struct ICECandidateErrorRecord: Sendable, Hashable, Codable {
    /// The server's URL, e.g. `turn:198.18.3.2:3478?transport=udp`.
    public var url: String
    /// The local address the request was sent from, if known.
    public var address: String?
    /// The local port the request was sent from, if known.
    public var port: Int?
    /// The STUN error code the server answered (401 Unauthorized for refused credentials, 437,
    /// 441, 486, …), or 701 when the server could not be reached (no answer, connection refused,
    /// TLS failure), as WebRTC reports it.
    public var errorCode: Int
    /// The reason: the server's reason phrase, or what went wrong reaching it.
    public var errorText: String
    /// When it was reported, milliseconds since the Unix epoch.
    public var timestamp: Int64

    /// The code WebRTC uses when a server could not be reached at all.
    public static let unreachable = 701

    /// Creates a record.
    public init(url: String, address: String? = nil, port: Int? = nil, errorCode: Int, errorText: String, timestamp: Int64) {
        self.url = url
        self.address = address
        self.port = port
        self.errorCode = errorCode
        self.errorText = errorText
        self.timestamp = timestamp
    }
}
