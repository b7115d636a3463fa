/// The client side of one TURN allocation (RFC 8656) with long-term credentials (RFC 8489
/// §9.2): Allocate with the 401 challenge and 438 stale-nonce retries, Refresh, ChannelBind, and
/// the wrapping of data in ChannelData (bound peers) or Send indications. Pure state: the caller
/// sends the bytes it returns to the server (UDP, TCP or TLS) and feeds back every STUN message
/// the server sends; over UDP it also calls ``retransmissions(now:)``.
public struct TURNClient: Sendable {
    /// What the allocation is doing.
    public enum State: Sendable, Hashable {
        /// Nothing sent yet.
        case idle
        /// An Allocate is outstanding.
        case allocating
        /// The server allocated a relayed address.
        case allocated(relayed: TransportAddress, mapped: TransportAddress?, lifetime: UInt32)
        /// The server refused, or never answered; the STUN error (nil when it never answered) and why.
        case failed(STUNErrorCode?, String)
        /// Deallocated (Refresh with lifetime 0).
        case closed
    }

    /// What a message from the server meant.
    public enum Event: Sendable, Hashable {
        /// The allocation succeeded.
        case allocated(relayed: TransportAddress, mapped: TransportAddress?)
        /// The allocation failed (credentials refused, quota, …).
        case failed(STUNErrorCode?, String)
        /// The request must be sent again with new credentials or nonce: send these bytes.
        case resend([UInt8])
        /// A channel is bound to the peer (and with it a permission).
        case channelBound(peer: TransportAddress, channel: UInt16)
        /// A ChannelBind was refused.
        case channelBindFailed(peer: TransportAddress, STUNErrorCode?)
        /// The allocation was refreshed for `lifetime` seconds (0: deleted).
        case refreshed(lifetime: UInt32)
        /// Data relayed from a peer.
        case data(peer: TransportAddress, payload: ArraySlice<UInt8>)
        /// Nothing to act on (a duplicate, an unrelated or unauthenticated response).
        case none
    }

    enum Request: Sendable {
        case allocate
        case refresh(lifetime: UInt32)
        case channelBind(peer: TransportAddress, channel: UInt16)
    }

    struct Pending: Sendable {
        var request: Request
        var bytes: [UInt8]
        var transmissions: Int
        var timeout: Double
        var nextRetransmit: Double
        var retries: Int
    }

    /// The TURN username.
    public let username: String
    let password: String
    /// Whether the transport is reliable (TCP/TLS: no retransmissions, ChannelData padded).
    public let isStream: Bool
    /// The allocation's state.
    public private(set) var state: State = .idle
    var realm: String?
    var nonce: String?
    var key: STUNIntegrityKey?
    var passwordAlgorithms: [STUNPasswordAlgorithm]?
    var pending: [STUNTransactionID: Pending] = [:]
    /// Bound channels by peer.
    public private(set) var channels: [TransportAddress: UInt16] = [:]
    var requestedChannels: [TransportAddress: UInt16] = [:]
    var peersByChannel: [UInt16: TransportAddress] = [:]
    var nextChannel: UInt16 = 0x4000
    /// The software name sent in SOFTWARE.
    let software: String
    /// Whether MD5 long-term passwords (RFC 8489 §9.2.2, all that RFC 5389 servers such as
    /// coturn speak) are used when the server offers nothing better; `true` by default. A server
    /// that offers SHA-256 always gets SHA-256, whatever its challenges say later.
    public let allowsMD5: Bool

    /// Creates a client.
    /// - Parameters:
    ///   - username: the TURN username (for REST credentials `"<expiry>:<identity>"`).
    ///   - password: the TURN password.
    ///   - isStream: `true` over TCP or TLS.
    ///   - software: the SOFTWARE attribute's value.
    ///   - allowsMD5: whether MD5 passwords are used with servers that offer nothing better.
    public init(username: String, password: String, isStream: Bool, software: String = "preflight", allowsMD5: Bool = true) {
        self.username = username
        self.password = password
        self.isStream = isStream
        self.software = software
        self.allowsMD5 = allowsMD5
    }

    /// The relayed address once allocated.
    public var relayedAddress: TransportAddress? {
        if case .allocated(let relayed, _, _) = state { relayed } else { nil }
    }

    /// The first Allocate (RFC 8656 §7.1): REQUESTED-TRANSPORT UDP, without credentials; the
    /// server's 401 brings the realm and nonce.
    public mutating func allocate(now: Double) -> [UInt8] {
        state = .allocating
        return send(.allocate, now: now) ?? []
    }

    /// Binds a channel to `peer` (RFC 8656 §11), which also installs a permission for it.
    /// Returns `nil` before the allocation exists or when every channel number is used.
    public mutating func channelBind(peer: TransportAddress, now: Double) -> [UInt8]? {
        guard relayedAddress != nil else { return nil }
        let channel: UInt16
        if let existing = requestedChannels[peer] {
            channel = existing
        } else {
            guard nextChannel <= 0x4FFF else { return nil }
            channel = nextChannel
            nextChannel += 1
            requestedChannels[peer] = channel
        }
        return send(.channelBind(peer: peer, channel: channel), now: now)
    }

    /// Refreshes the allocation for `lifetime` seconds; 0 deletes it (RFC 8656 §8).
    public mutating func refresh(lifetime: UInt32, now: Double) -> [UInt8]? {
        guard relayedAddress != nil else { return nil }
        return send(.refresh(lifetime: lifetime), now: now)
    }

    /// `payload` wrapped for `peer`: ChannelData when a channel is bound (padded on a stream),
    /// else a Send indication (RFC 8656 §10, §12).
    public func wrap(_ payload: [UInt8], to peer: TransportAddress) -> [UInt8]? {
        Self.wrap(payload, to: peer, channel: channels[peer], isStream: isStream)
    }

    /// `payload` wrapped for `peer`: ChannelData on `channel` (padded on a stream), or a Send
    /// indication without one. For senders that hold a channel number but not the client.
    public static func wrap(_ payload: [UInt8], to peer: TransportAddress, channel: UInt16?, isStream: Bool) -> [UInt8]? {
        if let channel, let message = try? ChannelData(channelNumber: channel, data: payload[...]) {
            return message.encoded(padded: isStream)
        }
        let indication = STUNMessage(
            type: STUNMessageType(method: .send, class: .indication), transactionID: .random(),
            attributes: [.xorPeerAddress(peer), .data(payload[...])])
        return try? indication.encoded()
    }

    /// Unwraps ChannelData from the server: the peer and the data; `nil` for an unbound channel.
    public func unwrap(channelData bytes: [UInt8]) -> (peer: TransportAddress, payload: ArraySlice<UInt8>)? {
        guard let message = try? ChannelData(decoding: bytes, padded: false), let peer = peersByChannel[message.channelNumber] else {
            return nil
        }
        return (peer, message.data)
    }

    /// The first retransmission timeout over UDP, RTO (RFC 8489 §6.2.1), seconds.
    public static let initialRetransmissionTimeout = 0.5
    /// How many times a request is sent over UDP, Rc (RFC 8489 §6.2.1).
    public static let maximumTransmissions = 7
    /// How many RTOs the client waits for an answer after the last transmission, Rm (RFC 8489 §6.2.1).
    public static let lastTransmissionWaitFactor = 16.0

    /// Requests to send again (UDP only): those whose retransmission timer expired (RFC 8489
    /// §6.2.1: RTO 500 ms doubling, Rc = 7 transmissions, then Rm × RTO = 8 s for the last
    /// answer). A request out of transmissions fails: an Allocate fails the allocation with
    /// ``Event/failed(_:_:)``, a ChannelBind gives ``Event/channelBindFailed(peer:_:)``.
    public mutating func retransmissions(now: Double) -> (resend: [[UInt8]], events: [Event]) {
        guard !isStream else { return ([], []) }
        var resend: [[UInt8]] = []
        var events: [Event] = []
        for (id, entry) in pending where entry.nextRetransmit <= now {
            if entry.transmissions >= Self.maximumTransmissions {
                pending[id] = nil
                switch entry.request {
                case .allocate:
                    state = .failed(nil, "no answer to Allocate")
                    events.append(.failed(nil, "no answer to Allocate"))
                case .channelBind(let peer, _):
                    requestedChannels[peer] = nil
                    events.append(.channelBindFailed(peer: peer, nil))
                case .refresh:
                    break
                }
                continue
            }
            var next = entry
            next.transmissions += 1
            next.timeout *= 2
            // After the last transmission the wait is Rm × RTO, not one more doubling.
            next.nextRetransmit = now + (next.transmissions == Self.maximumTransmissions
                ? Self.lastTransmissionWaitFactor * Self.initialRetransmissionTimeout : next.timeout)
            pending[id] = next
            resend.append(entry.bytes)
        }
        return (resend, events)
    }

    /// When ``retransmissions(now:)`` next has something to do: the earliest retransmission
    /// timer; `nil` when nothing is outstanding or the transport is a stream.
    public var nextDeadline: Double? {
        isStream ? nil : pending.values.lazy.map { $0.nextRetransmit }.min()
    }

    /// Handles a STUN message from the server: responses to this client's requests and Data
    /// indications.
    public mutating func handle(_ message: STUNMessage, now: Double) -> Event {
        if message.type == STUNMessageType(method: .data, class: .indication) {
            // The server relays only from peers with a permission (RFC 8656 §10.2); an indication
            // from any other peer is not the server's and is dropped (§10.4).
            guard let peer = message.xorPeerAddress, let payload = message.data, hasPermission(for: peer) else { return .none }
            return .data(peer: peer, payload: payload)
        }
        guard let entry = pending[message.transactionID] else { return .none }
        switch message.type.messageClass {
        case .successResponse:
            // Responses to authenticated requests must carry a valid MESSAGE-INTEGRITY.
            if let key {
                guard (try? message.verifyIntegrity(key: key)) != nil else { return .none }
            }
            pending[message.transactionID] = nil
            switch entry.request {
            case .allocate:
                guard let relayed = message.xorRelayedAddress else {
                    state = .failed(nil, "the Allocate success response has no XOR-RELAYED-ADDRESS")
                    return .failed(nil, "the Allocate success response has no XOR-RELAYED-ADDRESS")
                }
                state = .allocated(relayed: relayed, mapped: message.xorMappedAddress, lifetime: message.lifetime ?? 600)
                return .allocated(relayed: relayed, mapped: message.xorMappedAddress)
            case .refresh(let lifetime):
                if lifetime == 0 { state = .closed }
                return .refreshed(lifetime: message.lifetime ?? lifetime)
            case .channelBind(let peer, let channel):
                channels[peer] = channel
                peersByChannel[channel] = peer
                return .channelBound(peer: peer, channel: channel)
            }
        case .errorResponse:
            let error = message.errorCode
            pending[message.transactionID] = nil
            // 401 without our credentials yet, or 438: take the realm and nonce and ask again
            // (at most twice per request, so a server that keeps refusing ends it).
            if let error, error.code == 401 || error.code == 438, entry.retries < 2,
                let nonce = message.nonce, error.code == 438 || key == nil
            {
                // The challenge is unauthenticated: whatever it offers must not lower the
                // algorithm (RFC 8489 §9.2.5), or an attacker on the path picks MD5 for us.
                let offered = Self.passwordAlgorithms(in: message)
                if let downgrade = Self.downgrade(nonce: nonce, offered: offered, current: passwordAlgorithms) {
                    return fail(entry.request, error, downgrade)
                }
                self.nonce = nonce
                if let realm = message.realm { self.realm = realm }
                if let offered { passwordAlgorithms = offered }
                if key == nil || error.code == 401 {
                    // By number: an algorithm's parameters must not make MD5 look like another.
                    let algorithm: STUNPasswordAlgorithm
                    if let list = passwordAlgorithms {
                        guard let known = list.first(where: { $0.number == STUNPasswordAlgorithm.sha256.number })
                            ?? list.first(where: { $0.number == STUNPasswordAlgorithm.md5.number })
                        else { return fail(entry.request, error, "the server offers no password algorithm this client supports") }
                        algorithm = STUNPasswordAlgorithm(number: known.number)
                    } else {
                        algorithm = .md5
                    }
                    if algorithm.number == STUNPasswordAlgorithm.md5.number, !allowsMD5 {
                        return fail(entry.request, error, "the server offers only MD5 passwords, which this client refuses")
                    }
                    guard let realm = self.realm,
                        let credentials = try? STUNIntegrityKey(credentials: .longTerm(
                            username: username, realm: realm, password: password, algorithm: algorithm))
                    else { return fail(entry.request, error, "no REALM in the 401") }
                    key = credentials
                }
                guard let bytes = send(entry.request, now: now, retries: entry.retries + 1) else {
                    return fail(entry.request, error, "cannot encode the request")
                }
                return .resend(bytes)
            }
            let reason = error.map { $0.code == 401 ? "\($0): the server refused the credentials" : "\($0)" } ?? "error response"
            return fail(entry.request, error, reason)
        default:
            return .none
        }
    }

    mutating func fail(_ request: Request, _ error: STUNErrorCode?, _ reason: String) -> Event {
        switch request {
        case .allocate:
            state = .failed(error, reason)
            return .failed(error, reason)
        case .channelBind(let peer, let channel):
            // No channel, no permission: the peer's Data indications are refused again.
            requestedChannels[peer] = nil
            if peersByChannel[channel] == peer, channels[peer] == nil { peersByChannel[channel] = nil }
            return .channelBindFailed(peer: peer, error)
        case .refresh:
            return .none
        }
    }

    /// Whether `peer` may send to this client through the relay: a channel (and with it a
    /// permission, which covers the peer's IP address and any port) is bound or being bound to it.
    func hasPermission(for peer: TransportAddress) -> Bool {
        requestedChannels.keys.contains { $0.family == peer.family && $0.high == peer.high && $0.low == peer.low }
    }

    /// The nonce cookie of RFC 8489 §9.2: a server that speaks RFC 8489 starts its nonce with it,
    /// followed by 4 base64 characters of security feature bits.
    static let nonceCookie = "obMatJos2"

    /// Why a challenge lowers the password algorithm, or `nil` when it does not (RFC 8489 §9.2.5):
    /// a nonce whose cookie says the server supports password algorithms must come with
    /// PASSWORD-ALGORITHMS, and a list that once offered SHA-256 must keep offering it.
    static func downgrade(
        nonce: String, offered: [STUNPasswordAlgorithm]?, current: [STUNPasswordAlgorithm]?
    ) -> String? {
        let offersSHA256 = offered?.contains { $0.number == STUNPasswordAlgorithm.sha256.number } ?? false
        if current?.contains(where: { $0.number == STUNPasswordAlgorithm.sha256.number }) == true, !offersSHA256 {
            return "a challenge without SHA-256 after the server offered it (possible downgrade attack)"
        }
        if offered == nil, nonce.hasPrefix(nonceCookie) {
            let features = nonce.utf8.dropFirst(nonceCookie.utf8.count).prefix(4)
            // Bit 0 of the 24 feature bits, the most significant bit of the first base64 digit.
            if let first = features.first, let value = base64Value(first), value & 0x20 != 0 {
                return "the nonce announces password algorithms but the challenge lists none (possible downgrade attack)"
            }
        }
        return nil
    }

    static func base64Value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    static func passwordAlgorithms(in message: STUNMessage) -> [STUNPasswordAlgorithm]? {
        for attribute in message.attributes {
            if case .passwordAlgorithms(let list) = attribute { return list }
        }
        return nil
    }

    mutating func send(_ request: Request, now: Double, retries: Int = 0) -> [UInt8]? {
        let method: STUNMethod
        var attributes: [STUNAttribute] = []
        switch request {
        case .allocate:
            method = .allocate
            attributes.append(.requestedTransport(17))
        case .refresh(let lifetime):
            method = .refresh
            attributes.append(.lifetime(lifetime))
        case .channelBind(let peer, let channel):
            method = .channelBind
            attributes.append(.channelNumber(channel))
            attributes.append(.xorPeerAddress(peer))
        }
        attributes.append(.software(software))
        var bytes: [UInt8]?
        let message: STUNMessage
        if let key, let realm, let nonce {
            attributes.append(.username(username))
            attributes.append(.realm(realm))
            attributes.append(.nonce(nonce))
            if let passwordAlgorithms {
                attributes.append(.passwordAlgorithms(passwordAlgorithms))
                let chosen = passwordAlgorithms.contains { $0.number == STUNPasswordAlgorithm.sha256.number }
                    ? STUNPasswordAlgorithm.sha256 : .md5
                attributes.append(.passwordAlgorithm(chosen))
            }
            message = STUNMessage(type: STUNMessageType(method: method, class: .request), transactionID: .random(), attributes: attributes)
            bytes = try? message.encoded(integrityKey: key, fingerprint: true)
        } else {
            message = STUNMessage(type: STUNMessageType(method: method, class: .request), transactionID: .random(), attributes: attributes)
            bytes = try? message.encoded(fingerprint: true)
        }
        guard let bytes else { return nil }
        pending[message.transactionID] = Pending(
            request: request, bytes: bytes, transmissions: 1, timeout: Self.initialRetransmissionTimeout,
            nextRetransmit: now + Self.initialRetransmissionTimeout, retries: retries)
        return bytes
    }
}
