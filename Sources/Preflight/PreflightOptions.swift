import PreflightCore

/// What a ``PreflightTest`` needs: the access token and where the edge is, with the test's
/// settings. Every property but the token has a documented default.
public struct PreflightOptions: Sendable {
    /// The access token (JWT) with a voice grant whose outgoing application is the edge's test app.
    public var accessToken: String
    /// The edge's signaling URL, `ws://host:port/signaling` or `wss://…`;
    /// `ws://127.0.0.1:8080/signaling` by default.
    public var edgeURL: String
    /// Audio codecs by preference; `["PCMU"]` by default.
    public var preferredAudioCodecs: [String]
    /// How long media flows in an echo test; 10 s by default. The record-playback application
    /// ends the call itself (record 5 s, play back, pause 3 s).
    public var duration: Duration
    /// How long connecting, `hello`→`welcome` and `invite`→`answer` may take; 10 s by default.
    public var signalingTimeout: Duration
    /// How long ICE connectivity checks may take before the test fails with 53405; 5 s by default.
    public var iceTimeout: Duration
    /// How long media may stop arriving from the edge before the test fails with 53405; 2.5 s by default.
    public var mediaTimeout: Duration
    /// The longest a record-playback test waits for the edge to hang up; 40 s by default.
    public var maximumDuration: Duration
    /// Extra STUN/TURN servers, beside those the edge hands out (used by the ICE issue's agent).
    public var iceServers: [ICEServer]
    /// The report's `selectedEdge`: the edge the caller asked for; `"roaming"` by default.
    public var selectedEdge: String

    /// The accuracy benchmark's self-check: measure wrongly on purpose (count reordered packets
    /// as lost) so that the benchmark is seen to fail. Off by default; not for applications.
    @_spi(Testing) public var countsReorderedAsLost = false

    /// Creates options; see each property for its default.
    public init(
        accessToken: String,
        edgeURL: String = "ws://127.0.0.1:8080/signaling",
        preferredAudioCodecs: [String] = ["PCMU"],
        duration: Duration = .seconds(10),
        signalingTimeout: Duration = .seconds(10),
        iceTimeout: Duration = .seconds(5),
        mediaTimeout: Duration = .milliseconds(2500),
        maximumDuration: Duration = .seconds(40),
        iceServers: [ICEServer] = [],
        selectedEdge: String = "roaming"
    ) {
        self.accessToken = accessToken
        self.edgeURL = edgeURL
        self.preferredAudioCodecs = preferredAudioCodecs
        self.duration = duration
        self.signalingTimeout = signalingTimeout
        self.iceTimeout = iceTimeout
        self.mediaTimeout = mediaTimeout
        self.maximumDuration = maximumDuration
        self.iceServers = iceServers
        self.selectedEdge = selectedEdge
    }
}
