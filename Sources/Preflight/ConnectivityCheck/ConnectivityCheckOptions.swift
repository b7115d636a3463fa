public import PreflightModel

/// The settings of a connectivity check (``Diagnostics``).
public struct ConnectivityCheckOptions: Sendable {
    /// The access token (JWT); any valid token may run a check.
    public var accessToken: String
    /// The edge: its HTTP base (`http://127.0.0.1:8080`), its init URL (`…/v1/init`), or its
    /// signaling URL (`ws://127.0.0.1:8080/signaling`, whose host and port are used); the check
    /// asks its init endpoint for the signaling URL and ICE servers.
    public var edge: String
    /// How long the check runs, from its start: 20 s by default (100ms's); 5 s to 120 s. It
    /// ends earlier when a step fails.
    public var duration: Duration
    /// Audio codecs by preference, as ``PreflightOptions/preferredAudioCodecs``; `["PCMU"]` by default.
    public var preferredAudioCodecs: [String]
    /// The video test stream's bitrate, bits per second: 500,000 by default (a 360p profile);
    /// 100,000 to 1,000,000.
    public var videoBitrate: Int
    /// The video test stream's frame rate: 30 by default.
    public var videoFrameRate: Int
    /// The camera; `nil` by default: a ``TestPatternVideoSource`` stands in.
    public var videoInput: (any VideoFrameSource)?
    /// The microphone; `nil` by default: the test signal (a 440 Hz tone) is sent.
    public var audioInput: (any AudioFrameSource)?
    /// The name of ``audioInput`` for the device report; `"microphone"` by default.
    public var audioInputName: String
    /// Where the subscribe connection's audio is played; `nil` by default (only measured).
    public var audioOutput: (any AudioFrameSink)?
    /// The name of ``audioOutput`` for the device report; `"speaker"` by default.
    public var audioOutputName: String
    /// How long the init request, the signaling connection and the check's answer may take
    /// each; 10 s by default.
    public var signalingTimeout: Duration
    /// How long ICE may take on each connection; 5 s by default.
    public var iceTimeout: Duration
    /// How long gathering may take; 3 s by default.
    public var gatheringTimeout: Duration
    /// Extra STUN/TURN servers, beside those from the init endpoint.
    public var iceServers: [ICEServer]
    /// Which candidates ICE may use; `.all` by default.
    public var iceTransportPolicy: ICETransportPolicy
    /// A PEM file of CA certificates to trust for `https`/`wss` besides the system's; `nil` by default.
    public var edgeTrustedCertificatesFile: String?
    /// Whether the check uploads its result to the edge when it ends (`POST /v1/reports`);
    /// `true` by default. Bounded by ``signalingTimeout`` (5 s at most); a failed upload is logged.
    public var uploadsReport = true
    /// A PEM file of certificates to trust for TURN over TLS; `nil` by default.
    public var turnTrustedCertificatesFile: String?

    /// Whether the check follows the host's networks: a change is recorded in its result
    /// (`networkChanges`) and it goes on over the networks left (moving to a more preferred one
    /// that appears); with none left it ends with 70902 and what it measured. `true` by default.
    /// Not a constructor argument: set it on the value.
    public var followsNetworks = true
    /// The type of named interfaces, `name=type[,name=type…]` (the text of
    /// `PREFLIGHT_NETWORK_TYPES`, which it replaces); `nil` by default. Not a constructor argument.
    public var networkTypes: String?
    /// A test's own network states instead of the system's (``NetworkFollowingOptions``).
    var customNetworkSource: NetworkSource?

    /// The clock the check reads and waits on: when it started and reached each stage, and its
    /// timers. ``RunClock/continuous`` by default; a test gives it a virtual clock and moves time
    /// itself (`PreflightTesting.VirtualClock`). Not a constructor argument: set it on the value.
    public var clock: RunClock = .continuous

    /// Creates options; see each property for its default.
    public init(
        accessToken: String, edge: String = "http://127.0.0.1:8080", duration: Duration = .seconds(20),
        preferredAudioCodecs: [String] = ["PCMU"], videoBitrate: Int = 500_000, videoFrameRate: Int = 30,
        videoInput: (any VideoFrameSource)? = nil, audioInput: (any AudioFrameSource)? = nil, audioInputName: String = "microphone",
        audioOutput: (any AudioFrameSink)? = nil, audioOutputName: String = "speaker", signalingTimeout: Duration = .seconds(10),
        iceTimeout: Duration = .seconds(5), gatheringTimeout: Duration = .seconds(3), iceServers: [ICEServer] = [],
        iceTransportPolicy: ICETransportPolicy = .all, edgeTrustedCertificatesFile: String? = nil, turnTrustedCertificatesFile: String? = nil
    ) {
        self.accessToken = accessToken
        self.edge = edge
        self.duration = duration
        self.preferredAudioCodecs = preferredAudioCodecs
        self.videoBitrate = videoBitrate
        self.videoFrameRate = videoFrameRate
        self.videoInput = videoInput
        self.audioInput = audioInput
        self.audioInputName = audioInputName
        self.audioOutput = audioOutput
        self.audioOutputName = audioOutputName
        self.signalingTimeout = signalingTimeout
        self.iceTimeout = iceTimeout
        self.gatheringTimeout = gatheringTimeout
        self.iceServers = iceServers
        self.iceTransportPolicy = iceTransportPolicy
        self.edgeTrustedCertificatesFile = edgeTrustedCertificatesFile
        self.turnTrustedCertificatesFile = turnTrustedCertificatesFile
    }

    /// The shortest and longest check.
    public static let durationRange: ClosedRange<Duration> = .seconds(5) ... .seconds(120)
}
