/// A message of Preflight's signaling protocol: one JSON text frame on the WebSocket, with a
/// `type` field naming the case. The protocol is documented in `docs/protocol.md`.
///
/// Client to edge: ``hello(token:client:)``, ``resume(_:)``, ``invite(_:)``, ``register``,
/// ``accept(_:)``, ``reject(callSid:)``, ``insights(_:)``, ``candidates(_:)``, ``probe(_:)``, ``probeTrain(_:)``,
/// ``connectivityCheck(_:)``, ``hangup(_:)``.
/// Edge to client: ``welcome(_:)``, ``resumed(_:)``, ``registered(identity:)``, ``incoming(_:)``,
/// ``cancel(_:)``, ``ringing(callSid:)``, ``answer(_:)``, ``probeArrivals(_:)``, ``hangup(_:)``, ``error(_:)``.
public enum SignalingMessage: Sendable, Hashable {
    /// First message of a connection: the access token (a JWT) and the client's name and version.
    case hello(token: String, client: String?)
    /// The edge accepted the token: who it is and which ICE servers to use.
    case welcome(Welcome)
    /// First message of a new connection that continues a session whose connection was lost:
    /// the session's identifier and resume token from its welcome.
    case resume(Resume)
    /// The edge moved the session to this connection: it goes on where it was.
    case resumed(Resumed)
    /// Start a call: the client's ICE parameters and audio codecs in order of preference.
    case invite(Invite)
    /// The edge routed the call and it is ringing; the call's identifier.
    case ringing(callSid: String)
    /// The call was answered: the edge's ICE parameters and the chosen codec.
    case answer(Answer)
    /// Either side ends the call.
    case hangup(Hangup)
    /// The session takes incoming calls for its token's identity from now on (the token must
    /// allow incoming calls).
    case register
    /// The edge registered the session for incoming calls to this identity.
    case registered(identity: String)
    /// A call for this session's identity is ringing here: accept it or reject it.
    case incoming(Incoming)
    /// An incoming call stopped ringing here: the caller hung up, another device answered, or
    /// nobody answered in time.
    case cancel(Cancel)
    /// Answer an incoming call: the callee's ICE parameters and codecs, as an invite's.
    case accept(Accept)
    /// Decline an incoming call on this device.
    case reject(callSid: String)
    /// Events of a call for Insights (at most ``Insights/maximumEvents`` a message).
    case insights(Insights)
    /// A call's new host candidates: a network appeared during the call (client → edge; only to
    /// an edge whose welcome lists ``Welcome/candidatesFeature``).
    case candidates(Candidates)
    /// A user-defined message for the other party of the call (client → edge → client).
    case message(Message)
    /// Whether the edge delivered a message: `code` when it did not.
    case messageStatus(MessageStatus)
    /// Start a last-mile probe: the client's ICE parameters and the expected bitrates; the edge
    /// answers with an `answer` (application `"probe"`).
    case probe(Probe)
    /// Downlink probe packets at a rate and size from now on (client → edge).
    case probeTrain(ProbeTrain)
    /// The uplink probe packets the edge received: a batch every 100 ms (edge → client).
    case probeArrivals(ProbeArrivals)
    /// Start a connectivity check: the ICE parameters of the client's publish and subscribe
    /// connections and its audio codecs; the edge answers with an `answer` (application
    /// `"connectivity-check"`) carrying both of its own.
    case connectivityCheck(ConnectivityCheck)
    /// The edge refuses a message or ends a session: a numeric code and a message.
    case error(ErrorInfo)

    /// The `type` field's value for this message.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .welcome: "welcome"
        case .resume: "resume"
        case .resumed: "resumed"
        case .invite: "invite"
        case .ringing: "ringing"
        case .answer: "answer"
        case .hangup: "hangup"
        case .register: "register"
        case .registered: "registered"
        case .incoming: "incoming"
        case .cancel: "cancel"
        case .accept: "accept"
        case .reject: "reject"
        case .insights: "insights"
        case .candidates: "candidates"
        case .message: "message"
        case .messageStatus: "messageStatus"
        case .probe: "probe"
        case .probeTrain: "probeTrain"
        case .probeArrivals: "probeArrivals"
        case .connectivityCheck: "connectivityCheck"
        case .error: "error"
        }
    }

    /// The body of `welcome`.
    public struct Welcome: Sendable, Hashable, Codable {
        /// The edge location's name (the report's `edge`).
        public var edge: String
        /// This signaling session's identifier.
        public var sessionId: String
        /// STUN/TURN servers with credentials.
        public var iceServers: [ICEServer]
        /// The secret that lets a new connection continue this session (``SignalingMessage/resume(_:)``)
        /// within the edge's resume window; absent when the edge does not resume sessions.
        public var resumeToken: String?
        /// What this edge takes beyond the first version of the protocol (``candidatesFeature``);
        /// absent from an older edge's welcome, which a client must not send them to.
        public var features: [String]?

        /// The feature of an edge that takes ``SignalingMessage/candidates(_:)``.
        public static let candidatesFeature = "candidates"

        /// Creates the body.
        public init(
            edge: String, sessionId: String, iceServers: [ICEServer] = [], resumeToken: String? = nil, features: [String]? = nil
        ) {
            self.edge = edge
            self.sessionId = sessionId
            self.iceServers = iceServers
            self.resumeToken = resumeToken
            self.features = features
        }

        /// Whether the edge takes `feature`.
        public func offers(_ feature: String) -> Bool { features?.contains(feature) ?? false }
    }

    /// The body of `resume`.
    public struct Resume: Sendable, Hashable, Codable {
        /// The session's identifier from its welcome.
        public var sessionId: String
        /// The resume token from its welcome.
        public var resumeToken: String

        /// Creates the body.
        public init(sessionId: String, resumeToken: String) {
            self.sessionId = sessionId
            self.resumeToken = resumeToken
        }
    }

    /// The body of `resumed`.
    public struct Resumed: Sendable, Hashable, Codable {
        /// The session's identifier.
        public var sessionId: String
        /// The call in progress, if any: its media never stopped.
        public var callSid: String?
        /// The token for the next resume: each token resumes once.
        public var resumeToken: String?

        /// Creates the body.
        public init(sessionId: String, callSid: String? = nil, resumeToken: String? = nil) {
            self.sessionId = sessionId
            self.callSid = callSid
            self.resumeToken = resumeToken
        }
    }

    /// The body of `invite`.
    public struct Invite: Sendable, Hashable, Codable {
        /// The client's ICE parameters and candidates.
        public var ice: ICEParameters
        /// Audio codecs by preference, e.g. `["PCMU"]`.
        public var codecs: [String]
        /// Application parameters passed to the edge's application (like TwiML request parameters).
        public var params: [String: String]
        /// The key the caller's media is encrypted with (SRTP), if it encrypts.
        public var srtp: SRTPKey?

        /// Creates the body.
        public init(ice: ICEParameters, codecs: [String], params: [String: String] = [:], srtp: SRTPKey? = nil) {
            self.ice = ice
            self.codecs = codecs
            self.params = params
            self.srtp = srtp
        }
    }

    /// The body of `answer`.
    public struct Answer: Sendable, Hashable, Codable {
        /// The call's identifier.
        public var callSid: String
        /// The edge's ICE parameters (ICE-lite, host candidates).
        public var ice: ICEParameters
        /// The chosen codec's name, e.g. `"PCMU"`.
        public var codec: String
        /// The RTP payload type for the codec.
        public var payloadType: UInt8
        /// The edge application the call was routed to (`"echo"`, `"record-playback"`), if the edge says.
        public var application: String?
        /// The key the edge's media to this client is encrypted with; present when the offer had
        /// one and the edge encrypts this call (calls between clients), else the media is plain RTP.
        public var srtp: SRTPKey?
        /// A connectivity check's subscribe connection: the edge's ICE parameters for it (``ice``
        /// is then the publish connection's); absent for every other answer.
        public var subscribeIce: ICEParameters?

        /// Creates the body.
        public init(
            callSid: String, ice: ICEParameters, codec: String, payloadType: UInt8, application: String? = nil, srtp: SRTPKey? = nil,
            subscribeIce: ICEParameters? = nil
        ) {
            self.subscribeIce = subscribeIce
            self.callSid = callSid
            self.ice = ice
            self.codec = codec
            self.payloadType = payloadType
            self.application = application
            self.srtp = srtp
        }
    }

    /// The body of `hangup`.
    public struct Hangup: Sendable, Hashable, Codable {
        /// The call being ended.
        public var callSid: String
        /// Why, in words (`"completed"`, `"test duration reached"`, …).
        public var reason: String?
        /// A numeric code when the hangup is an error.
        public var code: Int?

        /// Creates the body.
        public init(callSid: String, reason: String? = nil, code: Int? = nil) {
            self.callSid = callSid
            self.reason = reason
            self.code = code
        }
    }

    /// The body of `error`.
    public struct ErrorInfo: Sendable, Hashable, Codable {
        /// The numeric code (docs/errors.md).
        public var code: Int
        /// What went wrong.
        public var message: String
        /// The call it concerns, if any.
        public var callSid: String?

        /// Creates the body.
        public init(code: Int, message: String, callSid: String? = nil) {
            self.code = code
            self.message = message
            self.callSid = callSid
        }

        /// The error as a ``PreflightError``.
        public var preflightError: PreflightError {
            PreflightError(code: PreflightError.Code(code), message: message)
        }
    }
}
