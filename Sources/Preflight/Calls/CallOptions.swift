public import PreflightModel

/// The media settings of a call, shared by ``ConnectOptions`` (placing a call) and
/// ``AcceptOptions`` (answering one), as Twilio's `TVOCallOptions`. Every property has a
/// documented default.
public struct CallOptions: Sendable {
    /// Audio codecs by preference (Twilio's `preferredAudioCodecs`): `"PCMU"`, `"opus"`, matched
    /// without case; `["PCMU"]` by default. The edge answers with the first it speaks. Opus is
    /// left out of the offer when this build has no libopus (libopus-dev); a list with nothing
    /// left fails with 70103, an empty one with 70005.
    public var preferredAudioCodecs: [String]
    /// Extra STUN/TURN servers, gathered from beside those the edge hands out; none by default.
    public var iceServers: [ICEServer]
    /// Which candidates ICE may use (WebRTC's `iceTransportPolicy`); `.all` by default.
    public var iceTransportPolicy: ICETransportPolicy
    /// How long gathering server-reflexive and relayed candidates may take; 3 s by default.
    public var gatheringTimeout: Duration
    /// How long ICE connectivity checks may take before the call fails to connect with 53405;
    /// 5 s by default.
    public var iceTimeout: Duration
    /// How long nothing may arrive from the edge before the media connection counts as lost:
    /// the call reports `isReconnecting` with 53405 and recovers with `didReconnect`; 2.5 s by default.
    public var mediaTimeout: Duration
    /// How long the selected pair may go without an answer to a consent check (RFC 7675) before
    /// the call ends with 53405; 30 s by default.
    public var consentTimeout: Duration
    /// A PEM file of certificates to trust for TURN over TLS (`turns:`) besides the system's;
    /// `nil` by default.
    public var turnTrustedCertificatesFile: String?
    /// Whether the call's media is encrypted (SRTP with AEAD_AES_128_GCM, RFC 7714; keys
    /// exchanged over the signaling connection); `true` by default. A call the edge does not
    /// encrypt (a test application's) runs on plain RTP.
    public var encryptsMedia: Bool
    /// Receives the call's user-defined messages and what became of those it sent; `nil` by default.
    public var messageDelegate: (any CallMessageDelegate)?

    /// Whether the call sends Preflight's synthetic test signal (Twilio's `fakeMicInput`); `true`
    /// by default. `false` sends ``audioInput`` (a microphone from PreflightDevices, a WAV file),
    /// and the call fails with `invalidArgument` (70005) when there is none.
    public var fakeMicInput: Bool
    /// The audio to send when ``fakeMicInput`` is `false`; `nil` by default.
    public var audioInput: (any AudioFrameSource)?
    /// Where the far party's audio goes to be heard (not while on hold); `nil` by default.
    public var audioOutput: (any AudioFrameSink)?

    /// Whether the call follows the host's networks, as the TVOCall reference promises: "An
    /// ongoing call will automatically switch to a more preferred network type if one becomes
    /// available" (ETHERNET, LOOPBACK, WIFI, VPN, CELLULAR), and one whose network goes away
    /// moves to the best left at once (docs/protocol.md, "Network changes"); `true` by default.
    public var followsNetworks: Bool = true
    /// The type of named interfaces, as `name=type[,name=type…]` (a final `*` matches a prefix):
    /// the text of `PREFLIGHT_NETWORK_TYPES`, which it replaces; `nil` (the environment's) by
    /// default. Text that does not parse leaves the call on the networks it started with.
    public var networkTypes: String?
    /// A test's own network states instead of the system's (``NetworkFollowingOptions``).
    var customNetworkSource: NetworkSource?
    /// Whether the call ends at once with 70902 when no network is left, as a preflight test
    /// does (a pre-call diagnosis's call); a user's call waits for one until consent expires.
    var endsWithoutNetwork = false

    /// The clock the call reads and waits on: when it started and reached each stage, and its
    /// timers. ``RunClock/continuous`` by default; a test gives it a virtual clock and moves time
    /// itself (`PreflightTesting.VirtualClock`). Not a constructor argument: set it on the value.
    public var clock: RunClock = .continuous

    /// Creates options; see each property for its default.
    public init(
        preferredAudioCodecs: [String] = ["PCMU"],
        iceServers: [ICEServer] = [],
        iceTransportPolicy: ICETransportPolicy = .all,
        gatheringTimeout: Duration = .seconds(3),
        iceTimeout: Duration = .seconds(5),
        mediaTimeout: Duration = .milliseconds(2500),
        consentTimeout: Duration = .seconds(30),
        turnTrustedCertificatesFile: String? = nil,
        messageDelegate: (any CallMessageDelegate)? = nil,
        encryptsMedia: Bool = true,
        fakeMicInput: Bool = true,
        audioInput: (any AudioFrameSource)? = nil,
        audioOutput: (any AudioFrameSink)? = nil
    ) {
        self.fakeMicInput = fakeMicInput
        self.audioInput = audioInput
        self.audioOutput = audioOutput
        self.encryptsMedia = encryptsMedia
        self.messageDelegate = messageDelegate
        self.preferredAudioCodecs = preferredAudioCodecs
        self.iceServers = iceServers
        self.iceTransportPolicy = iceTransportPolicy
        self.gatheringTimeout = gatheringTimeout
        self.iceTimeout = iceTimeout
        self.mediaTimeout = mediaTimeout
        self.consentTimeout = consentTimeout
        self.turnTrustedCertificatesFile = turnTrustedCertificatesFile
    }
}
