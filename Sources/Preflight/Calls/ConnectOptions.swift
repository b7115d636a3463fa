public import Dispatch

/// What ``Voice/connect(options:delegate:logger:)`` needs to place a call, as Twilio's
/// `TVOConnectOptions`: the access token, the edge, the parameters for the edge's application
/// (`To` names whom the `dial` application rings) and the call's media settings.
public struct ConnectOptions: Sendable {
    /// The access token (JWT) whose outgoing application is the edge's `dial` application (or a
    /// test application).
    public var accessToken: String
    /// The edge's signaling URL, `ws://host:port/signaling` or `wss://…`;
    /// `ws://127.0.0.1:8080/signaling` by default.
    public var edgeURL: String
    /// Parameters for the edge's application, as TwiML request parameters: `To` is whom to call
    /// (`client:bob`, a number of the edge's route table); the others reach the callee as the
    /// invite's custom parameters. Empty by default.
    public var params: [String: String]
    /// A PEM file of CA certificates to trust for a `wss://` ``edgeURL`` besides the system's;
    /// `nil` by default.
    public var edgeTrustedCertificatesFile: String?
    /// How long connecting, `hello`→`welcome` and each request may take; 10 s by default.
    public var signalingTimeout: Duration
    /// How long a lost signaling connection is retried before the call ends with 53001 (the
    /// call reports `isReconnecting` meanwhile); 10 s by default (the edge's resume window). A
    /// call retries at least a second past ``CallOptions/consentTimeout``: while its media may
    /// come back it is not given up, and a call whose network went for good ends with 53405.
    public var signalingResumeTimeout: Duration
    /// The media settings.
    public var callOptions: CallOptions
    /// The dispatch queue the call's ``CallDelegate`` and ``CallOptions/messageDelegate`` run on
    /// (Twilio's `delegateQueue`): the main queue by default, as "TVOCallDelegate methods are
    /// called on the main dispatch queue by default or on the delegateQueue provided". Give a
    /// serial queue: callbacks are queued on it in the events' order. The main queue runs only
    /// while something services it: an app's run loop does; a command-line program must call
    /// `dispatchMain()`, run a `RunLoop`, or be an `async` `main` (Swift's runtime then drains the
    /// main queue), or pass a queue of its own (docs/protocol.md, "Delegate queues").
    /// ``Call/events()`` does not depend on it. Not a constructor argument: set it on the value.
    public var delegateQueue: DispatchQueue = .main

    /// Creates options; see each property for its default.
    public init(
        accessToken: String,
        edgeURL: String = "ws://127.0.0.1:8080/signaling",
        params: [String: String] = [:],
        edgeTrustedCertificatesFile: String? = nil,
        signalingTimeout: Duration = .seconds(10),
        signalingResumeTimeout: Duration = .seconds(10),
        callOptions: CallOptions = CallOptions()
    ) {
        self.accessToken = accessToken
        self.edgeURL = edgeURL
        self.params = params
        self.edgeTrustedCertificatesFile = edgeTrustedCertificatesFile
        self.signalingTimeout = signalingTimeout
        self.signalingResumeTimeout = signalingResumeTimeout
        self.callOptions = callOptions
    }
}
