extension SignalingMessage {
    /// The body of `incoming`: a call ringing on this session.
    public struct Incoming: Sendable, Hashable, Codable {
        /// The call's identifier.
        public var callSid: String
        /// Who calls: `client:<identity>` of the caller.
        public var from: String
        /// Whom the caller dialed, as dialed (`client:bob`, a number of the route table).
        public var to: String
        /// The caller's custom parameters (the invite's `params` but `To`).
        public var params: [String: String]
        /// The call's codec (`"PCMU"`, `"opus"`): both parties carry the caller's, so an `accept`
        /// must offer it. Absent from edges before Opus, whose calls are PCMU.
        public var codec: String?

        /// Creates the body.
        public init(callSid: String, from: String, to: String, params: [String: String] = [:], codec: String? = nil) {
            self.callSid = callSid
            self.from = from
            self.to = to
            self.params = params
            self.codec = codec
        }
    }

    /// The body of `cancel`.
    public struct Cancel: Sendable, Hashable, Codable {
        /// The call that stopped ringing here.
        public var callSid: String
        /// Why, in words (`"caller hung up"`, `"answered elsewhere"`, `"no answer"`).
        public var reason: String?
        /// A numeric code when an error ended the ringing (e.g. 31480 for no answer).
        public var code: Int?

        /// Creates the body.
        public init(callSid: String, reason: String? = nil, code: Int? = nil) {
            self.callSid = callSid
            self.reason = reason
            self.code = code
        }
    }

    /// The body of `accept`.
    public struct Accept: Sendable, Hashable, Codable {
        /// The call being answered.
        public var callSid: String
        /// The callee's ICE parameters and candidates.
        public var ice: ICEParameters
        /// Audio codecs by preference, e.g. `["PCMU"]`.
        public var codecs: [String]
        /// The key the callee's media is encrypted with (SRTP), if it encrypts.
        public var srtp: SRTPKey?

        /// Creates the body.
        public init(callSid: String, ice: ICEParameters, codecs: [String], srtp: SRTPKey? = nil) {
            self.callSid = callSid
            self.ice = ice
            self.codecs = codecs
            self.srtp = srtp
        }
    }

    /// A sender's SRTP keying material, as RFC 4568's `inline` key carries it (SDES): the profile
    /// and base64 of the master key ‖ master salt. It travels only on the signaling connection
    /// (`wss` in deployments).
    public struct SRTPKey: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The protection profile, `AEAD_AES_128_GCM`.
        public var profile: String
        /// Base64 of the 16-byte master key and the 12-byte master salt.
        public var key: String

        /// Creates the body.
        public init(profile: String, key: String) {
            self.profile = profile
            self.key = key
        }

        /// The form of `material`.
        public init(_ material: SRTPKeyingMaterial) {
            self.init(profile: material.profile.rawValue, key: material.base64)
        }

        /// The keying material.
        /// - Throws: 70002 for a profile other than AEAD_AES_128_GCM or a key of the wrong length.
        public func material() throws(PreflightError) -> SRTPKeyingMaterial {
            // Calls speak the AEAD profile only (the counter-mode one is for browsers' DTLS-SRTP).
            guard let profile = SRTPProfile(rawValue: profile), profile == .aeadAES128GCM else {
                throw PreflightError(code: .malformed, message: "srtp: profile \(UntrustedText.quoted(profile)) is not spoken in calls; AEAD_AES_128_GCM is")
            }
            return try SRTPKeyingMaterial(base64: key, profile: profile)
        }

        /// Never the key itself.
        public var description: String { "SRTPKey(\(profile), redacted)" }
    }
}

extension SignalingMessage {
    /// The body of `insights`.
    public struct Insights: Sendable, Hashable, Codable {
        /// The call the events belong to.
        public var callSid: String
        /// The events, in the order they happened.
        public var events: [InsightsEvent]

        /// The most events one message carries.
        public static let maximumEvents = 100

        /// Creates the body.
        public init(callSid: String, events: [InsightsEvent]) {
            self.callSid = callSid
            self.events = events
        }
    }
}

extension SignalingMessage {
    /// The body of `candidates`: host candidates gathered on a network that appeared during the
    /// call. The edge records them in the call's events; it never sends to them (an ICE-lite edge
    /// learns a path only from a check that authenticates from it, docs/security.md).
    public struct Candidates: Sendable, Hashable, Codable {
        /// The call.
        public var callSid: String
        /// The new candidates, at most ``maximumCandidates``.
        public var candidates: [ICECandidate]

        /// The most candidates one message carries (a network's addresses: 16).
        public static let maximumCandidates = 16

        /// Creates the body.
        public init(callSid: String, candidates: [ICECandidate]) {
            self.callSid = callSid
            self.candidates = candidates
        }

        /// Checks the count and each candidate (``ICECandidate/validate()``).
        /// - Throws: ``PreflightError`` `.malformed`.
        public func validate() throws(PreflightError) {
            guard (1...Self.maximumCandidates).contains(candidates.count) else {
                throw PreflightError(
                    code: .malformed, message: "candidates: 1 to \(Self.maximumCandidates) candidates a message, got \(candidates.count)")
            }
            for candidate in candidates { try candidate.validate() }
        }
    }
}

extension SignalingMessage {
    /// The body of `message`.
    public struct Message: Sendable, Hashable, Codable {
        /// The call between the parties.
        public var callSid: String
        /// The sender's identifier of the message (returned by `sendMessage`), at most
        /// ``maximumIdLength`` bytes.
        public var id: String
        /// The message itself.
        public var message: CallMessage

        /// The longest `id`, in bytes of UTF-8: 256 (the SDK's are 34: `KX` and 32 hex digits).
        public static let maximumIdLength = 256

        /// Creates the body.
        public init(callSid: String, id: String, message: CallMessage) {
            self.callSid = callSid
            self.id = id
            self.message = message
        }
    }

    /// The body of `messageStatus`.
    public struct MessageStatus: Sendable, Hashable, Codable {
        /// The call the message was sent in.
        public var callSid: String
        /// The message's identifier.
        public var id: String
        /// Why it was not delivered (docs/errors.md); absent when it was.
        public var code: Int?
        /// What went wrong, when it did.
        public var reason: String?

        /// Creates the body.
        public init(callSid: String, id: String, code: Int? = nil, reason: String? = nil) {
            self.callSid = callSid
            self.id = id
            self.code = code
            self.reason = reason
        }
    }
}

extension SignalingMessage {
    /// The call the message concerns, when it names one.
    public var callSid: String? {
        switch self {
        case .ringing(let callSid), .reject(let callSid): callSid
        case .answer(let body): body.callSid
        case .hangup(let body): body.callSid
        case .error(let body): body.callSid
        case .incoming(let body): body.callSid
        case .cancel(let body): body.callSid
        case .accept(let body): body.callSid
        case .insights(let body): body.callSid
        case .candidates(let body): body.callSid
        case .message(let body): body.callSid
        case .messageStatus(let body): body.callSid
        case .resumed(let body): body.callSid
        case .hello, .welcome, .resume, .invite, .register, .registered, .probe, .probeTrain, .probeArrivals, .connectivityCheck: nil
        }
    }
}
