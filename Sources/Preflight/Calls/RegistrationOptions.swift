public import Dispatch

/// What ``Voice/register(options:delegate:logger:)`` needs: the access token (with
/// `grants.voice.incoming.allow`) and the edge.
public struct RegistrationOptions: Sendable {
    /// The access token (JWT) of the identity that receives calls.
    public var accessToken: String
    /// The edge's signaling URL; `ws://127.0.0.1:8080/signaling` by default.
    public var edgeURL: String
    /// A PEM file of CA certificates to trust for a `wss://` ``edgeURL`` besides the system's;
    /// `nil` by default.
    public var edgeTrustedCertificatesFile: String?
    /// Whether a completed pre-call diagnosis uploads its result to the edge
    /// (`POST /v1/reports`); `true` by default. A failed upload is logged.
    public var uploadsReport = true
    /// How long connecting, signing in and registering may take; 10 s by default.
    public var signalingTimeout: Duration
    /// How long a lost connection is retried while a call accepted on it is up; 10 s by default.
    public var signalingResumeTimeout: Duration

    /// Edges to register on, in order, when ``edgeURL`` cannot take the registration: it cannot
    /// be reached or answers nothing in time (53000, 53001, 53002), is at capacity (70101) or
    /// drains before it stops (70109). Errors every edge would give (a token refused, 20101…)
    /// try no other. Empty by default. Edges that share a database route calls to a device on
    /// any of them (docs/protocol.md, "Between edges"); a registration ended by 70109 is made
    /// again with the same options, and the draining edge then refuses it. Not a constructor
    /// argument: set it on the value.
    public var fallbackEdgeURLs: [String] = []

    /// The clock of the registration's pre-call diagnosis: its call's timers and when it hangs
    /// up. ``RunClock/continuous`` by default; a test gives it a virtual clock
    /// (`PreflightTesting.VirtualClock`). Not a constructor argument: set it on the value.
    public var clock: RunClock = .continuous

    /// The dispatch queue the ``NotificationDelegate``'s callbacks run on (as Twilio's
    /// `delegateQueue`): the main queue by default. Give a serial queue: callbacks are queued on it
    /// in the events' order. The main queue runs only while something services it: an app's run
    /// loop does; a command-line program must call `dispatchMain()`, run a `RunLoop`, or be an
    /// `async` `main` (Swift's runtime then drains the main queue), or pass a queue of its own
    /// (docs/protocol.md, "Delegate queues"). ``Registration/events()`` does not depend on it. Not
    /// a constructor argument: set it on the value.
    public var delegateQueue: DispatchQueue = .main

    /// Creates options; see each property for its default.
    public init(
        accessToken: String, edgeURL: String = "ws://127.0.0.1:8080/signaling", edgeTrustedCertificatesFile: String? = nil,
        signalingTimeout: Duration = .seconds(10), signalingResumeTimeout: Duration = .seconds(10)
    ) {
        self.accessToken = accessToken
        self.edgeURL = edgeURL
        self.edgeTrustedCertificatesFile = edgeTrustedCertificatesFile
        self.signalingTimeout = signalingTimeout
        self.signalingResumeTimeout = signalingResumeTimeout
    }
}
