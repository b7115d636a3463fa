public import Dispatch
public import PreflightModel

/// What a ``PreflightTest`` needs: the access token and where the edge is, with the test's
/// settings. Every property but the token has a documented default.
public struct PreflightOptions: Sendable {
    /// The access token (JWT) with a voice grant whose outgoing application is the edge's test app.
    public var accessToken: String
    /// The edge's signaling URL, `ws://host:port/signaling` or `wss://…`;
    /// `ws://127.0.0.1:8080/signaling` by default.
    public var edgeURL: String
    /// Audio codecs by preference (Twilio's `preferredAudioCodecs`): `"PCMU"`, `"opus"`, matched
    /// without case; `["PCMU"]` by default. The edge answers with the first it speaks. Opus is
    /// left out of the offer when this build has no libopus (libopus-dev); a list with nothing
    /// left fails with 70103, an empty one with 70005.
    public var preferredAudioCodecs: [String]
    /// How long media flows in an echo test: 10 s by default, or ``TestDuration/adaptive(maximum:)``
    /// to end as soon as the verdict is settled. The record-playback application ends the call
    /// itself (record 5 s, play back, pause 3 s).
    public var duration: TestDuration
    /// With an adaptive ``duration``: whether the test goes on to its maximum after its verdict
    /// settles, recording when and on what it settled (`verdictSettlement`, whose
    /// `continuedToSeconds` then says how long it ran). The report's verdict is the maximum's, so
    /// the settled verdict can be checked against the same run's (the accuracy benchmark's mode,
    /// docs/measurement.md). `false` by default. Not a constructor argument: set it on the value.
    public var continuesAfterSettling = false
    /// How long connecting, `hello`→`welcome` and `invite`→`answer` may take; 10 s by default.
    public var signalingTimeout: Duration
    /// How long ICE connectivity checks may take before the test fails with 53405; 5 s by default.
    public var iceTimeout: Duration
    /// How long nothing may arrive from the edge on the selected pair before the connection
    /// counts as disconnected (the ICE `disconnected` state: a reconnect attempt starts, and the
    /// test fails with 53405 unless media flows again before the test ends); 2.5 s by default.
    public var mediaTimeout: Duration
    /// The longest a record-playback test waits for the edge to hang up; 40 s by default.
    public var maximumDuration: Duration
    /// Extra STUN/TURN servers, gathered from beside those the edge hands out in `welcome`.
    public var iceServers: [ICEServer]
    /// Which candidates ICE may use (WebRTC's `iceTransportPolicy`); `.all` by default.
    public var iceTransportPolicy: ICETransportPolicy
    /// How long gathering server-reflexive and relayed candidates may take before the invite goes
    /// out with what was gathered; 3 s by default. A server silent that long is reported in
    /// the report's `iceCandidateErrors` (701).
    public var gatheringTimeout: Duration
    /// How long the selected pair may go without an answer to a consent check (RFC 7675) before
    /// the test fails; 30 s by default (RFC 7675 §5.1). Nothing from the edge for
    /// ``mediaTimeout`` already marks the connection disconnected and starts a reconnect attempt.
    public var consentTimeout: Duration
    /// A PEM file of certificates to trust for TURN over TLS (`turns:`) besides the system's;
    /// `nil` by default.
    public var turnTrustedCertificatesFile: String?
    /// The report's `selectedEdge`: the edge the caller asked for; `"roaming"` by default. The
    /// reference's field table says an unset edge "defaults to gll" while its example report has
    /// `"roaming"`: both name Global Low Latency routing (`gll` is its older name), and Preflight
    /// keeps the example's value, which dashboards built on that report expect
    /// (docs/protocol.md, "Roaming").
    public var selectedEdge: String
    /// A PEM file of CA certificates to trust for a `wss://` ``edgeURL`` besides the system's
    /// (an edge with a private or self-signed certificate); `nil` by default. The edge's
    /// certificate is always fully verified: chain and host name (or, for an address literal
    /// such as `wss://127.0.0.1:8443/…`, the certificate's IP address entry).
    public var edgeTrustedCertificatesFile: String?

    /// The accuracy benchmark's self-check: measure wrongly on purpose (count reordered packets
    /// as lost) so that the benchmark is seen to fail. Off by default; not for applications.
    @_spi(Testing) public var countsReorderedAsLost = false

    /// Whether the test sends Preflight's synthetic test signal (Twilio's `fakeMicInput`); `true`
    /// by default. `false` sends ``audioInput`` instead (a microphone from PreflightDevices, a
    /// WAV file, the app's own audio), and the test then fails with `invalidArgument` (70005)
    /// when there is none.
    public var fakeMicInput: Bool
    /// The audio to send when ``fakeMicInput`` is `false`; `nil` by default.
    public var audioInput: (any AudioFrameSource)?
    /// Where the received audio goes to be heard (a speaker from PreflightDevices); `nil` by
    /// default: it is only measured.
    public var audioOutput: (any AudioFrameSink)?
    /// Parameters for the edge's application, as Twilio passes TwiML request parameters: the
    /// record-playback application takes `interval`, the seconds it records (2 to 10; the edge's
    /// default, 5 s, without it). Empty by default.
    public var params: [String: String]
    /// Whether the test uploads its report (the completed one, or the partial one of a failed
    /// test) to the edge when it ends, for the edge's REST API and dashboard; `true` by default.
    /// The upload is bounded by ``signalingTimeout`` (5 s at most) and never changes the test's
    /// outcome: a failed upload is logged.
    public var uploadsReport = true
    /// Which edge to test: `nil` (default) is ``edgeURL``; ``EdgeOption/roaming(_:)`` measures
    /// the RTT to each of several edges first and tests the nearest (the report's
    /// `edgeSelection` has the figures; `selectedEdge` stays as set, `"roaming"` by default,
    /// and `edge` is the chosen edge's name). The access token must be valid at every edge.
    public var edge: EdgeOption?

    /// Whether the test follows the host's networks: a change is recorded in the report
    /// (``PreflightReport/networkChanges``) and the test goes on over the networks left (moving
    /// to a more preferred one that appears); with none left it ends with 70902 and its partial
    /// report. `true` by default. Not a constructor argument: set it on the value.
    public var followsNetworks = true
    /// The type of named interfaces, `name=type[,name=type…]` (the text of
    /// `PREFLIGHT_NETWORK_TYPES`, which it replaces); `nil` by default. Not a constructor argument.
    public var networkTypes: String?
    /// A test's own network states instead of the system's (``NetworkFollowingOptions``).
    var customNetworkSource: NetworkSource?

    /// Whether, and how, the test diagnoses its path to the edge beside its media: probes toward
    /// the edge's media address hop by hop, the hops grouped into segments (your Wi-Fi, your
    /// provider, the way to the edge) and the segment a problem starts in named in the report's
    /// `pathDiagnosis` (``PathDiagnosis``). `nil` (no diagnosis) by default. Not a constructor
    /// argument: set it on the value.
    public var pathDiagnosis: PathDiagnosisOptions?

    /// The clock the test reads and waits on: when it started and reached each stage, and its
    /// timers. ``RunClock/continuous`` by default; a test gives it a virtual clock and moves time
    /// itself (`PreflightTesting.VirtualClock`). Not a constructor argument: set it on the value.
    public var clock: RunClock = .continuous

    /// The dispatch queue the ``PreflightTestDelegate``'s callbacks run on (as Twilio's
    /// `delegateQueue`): the main queue by default. Give a serial queue: callbacks are queued on it
    /// in the events' order. The main queue runs only while something services it: an app's run
    /// loop does; a command-line program must call `dispatchMain()`, run a `RunLoop`, or be an
    /// `async` `main` (Swift's runtime then drains the main queue), or pass a queue of its own
    /// (docs/protocol.md, "Delegate queues"). ``PreflightTest/events()`` does not depend on it. Not
    /// a constructor argument: set it on the value.
    public var delegateQueue: DispatchQueue = .main

    /// Creates options; see each property for its default.
    public init(
        accessToken: String,
        edgeURL: String = "ws://127.0.0.1:8080/signaling",
        preferredAudioCodecs: [String] = ["PCMU"],
        duration: TestDuration = .seconds(10),
        signalingTimeout: Duration = .seconds(10),
        iceTimeout: Duration = .seconds(5),
        mediaTimeout: Duration = .milliseconds(2500),
        maximumDuration: Duration = .seconds(40),
        iceServers: [ICEServer] = [],
        iceTransportPolicy: ICETransportPolicy = .all,
        gatheringTimeout: Duration = .seconds(3),
        consentTimeout: Duration = .seconds(30),
        turnTrustedCertificatesFile: String? = nil,
        selectedEdge: String = "roaming",
        edgeTrustedCertificatesFile: String? = nil,
        fakeMicInput: Bool = true,
        audioInput: (any AudioFrameSource)? = nil,
        audioOutput: (any AudioFrameSink)? = nil,
        params: [String: String] = [:]
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
        self.iceTransportPolicy = iceTransportPolicy
        self.gatheringTimeout = gatheringTimeout
        self.consentTimeout = consentTimeout
        self.turnTrustedCertificatesFile = turnTrustedCertificatesFile
        self.selectedEdge = selectedEdge
        self.edgeTrustedCertificatesFile = edgeTrustedCertificatesFile
        self.fakeMicInput = fakeMicInput
        self.audioInput = audioInput
        self.audioOutput = audioOutput
        self.params = params
    }
}
