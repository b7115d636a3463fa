public import Dispatch
public import PreflightModel

/// Where a ``LastmileProbe`` runs: the access token and the edge, with the connection's settings.
/// Every property but the token has a documented default. What is measured is the
/// ``LastmileProbeConfig`` given to ``LastmileProbe/start(config:)``.
public struct LastmileProbeOptions: Sendable {
    /// An access token of the edge (any valid one: the probe needs no application grant).
    public var accessToken: String
    /// The edge's signaling URL, `ws://host:port/signaling` or `wss://…`;
    /// `ws://127.0.0.1:8080/signaling` by default.
    public var edgeURL: String
    /// How long connecting, `hello`→`welcome` and `probe`→`answer` may take; 10 s by default.
    public var signalingTimeout: Duration
    /// How long ICE connectivity checks may take before the probe ends `unavailable`; 5 s by default.
    public var iceTimeout: Duration
    /// How long gathering server-reflexive and relayed candidates may take; 3 s by default.
    public var gatheringTimeout: Duration
    /// Extra STUN/TURN servers, gathered from beside those the edge hands out in `welcome`.
    public var iceServers: [ICEServer]
    /// Which candidates ICE may use; `.all` by default.
    public var iceTransportPolicy: ICETransportPolicy
    /// A PEM file of CA certificates to trust for a `wss://` ``edgeURL`` besides the system's;
    /// `nil` by default.
    public var edgeTrustedCertificatesFile: String?
    /// Whether the probe uploads its result to the edge when it ends (`POST /v1/reports`);
    /// `true` by default. Bounded by ``signalingTimeout`` (5 s at most); a failed upload is logged.
    public var uploadsReport = true
    /// A PEM file of certificates to trust for TURN over TLS besides the system's; `nil` by default.
    public var turnTrustedCertificatesFile: String?
    /// The UDP receive buffer asked for, bytes; 2 MB by default. A full buffer drops probe packets
    /// on this host, which would read as a slow downlink: the probe also watches the kernel's
    /// `RcvbufErrors` counter and gives no estimate when it grew.
    public var receiveBufferSize: Int

    /// The accuracy benchmark's self-check: count payload bytes only (no headers), so that the
    /// benchmark is seen to fail. Off by default; not for applications.
    @_spi(Testing) public var countsPayloadOnly = false
    /// The accuracy benchmark's self-check: average the whole train instead of the packets after
    /// the knee. Off by default; not for applications.
    @_spi(Testing) public var averagesWholeTrain = false

    /// Whether the probe follows the host's networks: a change is recorded in its result
    /// (`networkChanges`) and it goes on over the networks left (moving to a more preferred one
    /// that appears); with none left it ends with 70902 and what it measured. `true` by default.
    /// Not a constructor argument: set it on the value.
    public var followsNetworks = true
    /// The type of named interfaces, `name=type[,name=type…]` (the text of
    /// `PREFLIGHT_NETWORK_TYPES`, which it replaces); `nil` by default. Not a constructor argument.
    public var networkTypes: String?
    /// A test's own network states instead of the system's (``NetworkFollowingOptions``).
    var customNetworkSource: NetworkSource?

    /// The clock the probe reads and waits on: when it started and reached each stage, and its
    /// timers. ``RunClock/continuous`` by default; a test gives it a virtual clock and moves time
    /// itself (`PreflightTesting.VirtualClock`). Not a constructor argument: set it on the value.
    public var clock: RunClock = .continuous

    /// The dispatch queue the ``LastmileProbeDelegate``'s callbacks run on (as Twilio's
    /// `delegateQueue`): the main queue by default. Give a serial queue: callbacks are queued on it
    /// in the events' order. The main queue runs only while something services it: an app's run
    /// loop does; a command-line program must call `dispatchMain()`, run a `RunLoop`, or be an
    /// `async` `main` (Swift's runtime then drains the main queue), or pass a queue of its own
    /// (docs/protocol.md, "Delegate queues"). ``LastmileProbe/events()`` does not depend on it. Not
    /// a constructor argument: set it on the value.
    public var delegateQueue: DispatchQueue = .main

    /// Creates options; see each property for its default.
    public init(
        accessToken: String, edgeURL: String = "ws://127.0.0.1:8080/signaling", signalingTimeout: Duration = .seconds(10),
        iceTimeout: Duration = .seconds(5), gatheringTimeout: Duration = .seconds(3), iceServers: [ICEServer] = [],
        iceTransportPolicy: ICETransportPolicy = .all, edgeTrustedCertificatesFile: String? = nil,
        turnTrustedCertificatesFile: String? = nil, receiveBufferSize: Int = 2 << 20
    ) {
        self.accessToken = accessToken
        self.edgeURL = edgeURL
        self.signalingTimeout = signalingTimeout
        self.iceTimeout = iceTimeout
        self.gatheringTimeout = gatheringTimeout
        self.iceServers = iceServers
        self.iceTransportPolicy = iceTransportPolicy
        self.edgeTrustedCertificatesFile = edgeTrustedCertificatesFile
        self.turnTrustedCertificatesFile = turnTrustedCertificatesFile
        self.receiveBufferSize = receiveBufferSize
    }
}
