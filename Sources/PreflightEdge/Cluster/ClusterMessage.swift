import Foundation
import NIOCore
import PreflightCore

/// What one edge tells another about calls and registrations (docs/protocol.md, "Between
/// edges"): JSON over the shared database's notifications (``PostgresClusterBus``).
///
/// A message names its sender and its addressee (none: every edge), and expires: a receiver
/// drops one past `expiresAt` (each kind's time to live is ``timeToLive``), so a message
/// delayed by a stalled edge or database never acts late. Every field is checked on receipt
/// (``validate()``): another edge is trusted only as far as the database's credentials go.
public struct ClusterMessage: Codable, Sendable, Hashable {
    enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// `identity` of `account` registered session `session` on the sender.
        case registered
        /// Session `session` of the sender is no longer registered.
        case unregistered
        /// A call from `session` (the caller, `from`) rings the addressee's devices of
        /// `identity`: `incoming` is what they get.
        case invite
        /// No device of the addressee rings for `callSid` any more (none free, all rejected):
        /// `code` says why.
        case declined
        /// Device `session` on the sender accepted `callSid` (to the caller's edge, which decides).
        case accept
        /// The caller's edge's decision on `session`'s accept: `won` or not.
        case accepted
        /// `callSid` stops ringing on the addressee (`reason`, `code`).
        case cancel
        /// The sender's party ended `callSid` (`reason`, `code`).
        case hangup
        /// A user-defined message of `callSid` for the addressee's party.
        case message
    }

    var kind: Kind
    /// The sending edge's name.
    var from: String
    /// The addressee's name; `nil` for every edge (registrations).
    var to: String?
    /// Milliseconds since the Unix epoch after which the message is dropped.
    var expiresAt: Int64
    var callSid: String?
    var session: String?
    var account: String?
    var identity: String?
    var incoming: SignalingMessage.Incoming?
    var won: Bool?
    var reason: String?
    var code: Int?
    var userMessage: SignalingMessage.Message?
    /// The sender's side of the call's trunk (``TrunkOffer``): in an invite (with the call's
    /// keys and SSRCs) and an accept (the accepting edge's address).
    var trunk: TrunkOffer?

    /// A call's trunk between two edges (``MediaService/addTrunkLeg``).
    struct TrunkOffer: Codable, Sendable, Hashable {
        /// The sender's media address, `IP:port` (`[IPv6]:port`).
        var address: String
        /// The caller's edge's key and SSRC (what it sends), and the callee's edge's: invite only.
        var callerKey: SignalingMessage.SRTPKey?
        var calleeKey: SignalingMessage.SRTPKey?
        var callerSSRC: UInt32?
        var calleeSSRC: UInt32?

        /// The address, parsed: an IP address and a port, never a name to look up.
        func socketAddress() -> SocketAddress? { ClusterTrunkAddress.parse(address) }

        /// `address` as a trunk offer's text.
        static func text(_ address: SocketAddress) -> String? {
            guard let ip = address.ipAddress, let port = address.port else { return nil }
            return address.protocol == .inet6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        }
    }

    /// How long a message of each kind stays worth acting on, milliseconds: a ring or a
    /// decision older than a few seconds is better lost (the caller's ring timeout and the
    /// accepting device's wait cover it) than acted on late.
    static func timeToLive(_ kind: Kind) -> Int64 {
        switch kind {
        case .registered, .unregistered: 10_000
        case .invite, .declined, .accept, .accepted, .cancel: 5_000
        case .hangup, .message: 10_000
        }
    }

    /// The longest text of a message the bus reads (a user-defined message's 10 KB content, its
    /// fields, escaping); longer ones are refused unread.
    static let maximumTextLength = 64 * 1024
    /// The longest names and reasons a message carries.
    static let maximumFieldLength = 256
    static let maximumReasonLength = 1024

    init(
        _ kind: Kind, from: String, to: String?, now: Int64, callSid: String? = nil, session: String? = nil, account: String? = nil,
        identity: String? = nil
    ) {
        self.kind = kind
        self.from = from
        self.to = to
        expiresAt = now + Self.timeToLive(kind)
        self.callSid = callSid
        self.session = session
        self.account = account
        self.identity = identity
    }

    /// Parses and checks a message's text.
    /// - Throws: 70002 for text that is not a valid message.
    public init(jsonText text: String) throws(PreflightError) {
        guard text.utf8.count <= Self.maximumTextLength else {
            throw PreflightError(code: .malformed, message: "cluster message: over \(Self.maximumTextLength) bytes")
        }
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(text.utf8))
        } catch {
            throw PreflightError(code: .malformed, message: "cluster message: not a message (\(UntrustedText.excerpt("\(error)", limit: 200)))")
        }
        try validate()
    }

    /// The message as JSON text.
    public func jsonText() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }

    /// Checks that the fields each kind needs are there and within their limits.
    /// - Throws: 70002 naming the first field that is not.
    public func validate() throws(PreflightError) {
        func invalid(_ field: String) -> PreflightError {
            PreflightError(code: .malformed, message: "cluster message \(kind.rawValue): \(field) missing or invalid")
        }
        func name(_ value: String?) -> Bool {
            guard let value else { return false }
            return !value.isEmpty && value.utf8.count <= Self.maximumFieldLength && !value.unicodeScalars.contains { $0.value < 0x20 }
        }
        guard name(from), to.map({ name($0) }) ?? true else { throw invalid("from/to") }
        guard (reason?.utf8.count ?? 0) <= Self.maximumReasonLength else { throw invalid("reason") }
        guard code.map({ (0...99_999).contains($0) }) ?? true else { throw invalid("code") }
        switch kind {
        case .registered, .unregistered:
            guard name(session), name(account), identity.map({ $0.utf8.count <= Self.maximumFieldLength }) ?? false else {
                throw invalid("session/account/identity")
            }
        case .invite:
            guard name(callSid), name(session), name(account), name(identity), let incoming, incoming.callSid == callSid,
                incoming.from.utf8.count <= Self.maximumFieldLength, incoming.to.utf8.count <= Self.maximumFieldLength,
                incoming.params.count <= 32,
                incoming.params.allSatisfy({ $0.key.utf8.count <= Self.maximumFieldLength && $0.value.utf8.count <= Self.maximumReasonLength }),
                let codec = incoming.codec, AudioPayloadFormat.firstKnown(of: [codec]) != nil
            else { throw invalid("callSid/session/account/identity/incoming") }
            guard let trunk, trunk.socketAddress() != nil, (try? trunk.callerKey?.material()) != nil,
                (try? trunk.calleeKey?.material()) != nil, let caller = trunk.callerSSRC, let callee = trunk.calleeSSRC, caller != callee
            else { throw invalid("trunk") }
        case .accept, .accepted:
            guard name(callSid), name(session), kind == .accept || won != nil, to != nil else { throw invalid("callSid/session/won") }
            guard kind == .accepted || trunk?.socketAddress() != nil else { throw invalid("trunk") }
        case .declined, .cancel, .hangup:
            guard name(callSid), to != nil else { throw invalid("callSid") }
        case .message:
            guard name(callSid), to != nil, let userMessage, userMessage.callSid == callSid,
                userMessage.id.utf8.count <= SignalingMessage.Message.maximumIdLength,
                userMessage.message.content.utf8.count <= CallMessage.maximumContentLength
            else { throw invalid("userMessage") }
        }
    }
}

/// An edge's trunk address as text: `IP:PORT`, `[IPv6]:PORT`.
public enum ClusterTrunkAddress {
    /// The address, parsed: an IP address and a port from 1 to 65535, never a name to look up.
    public static func parse(_ text: String) -> SocketAddress? {
        guard text.utf8.count <= 64, let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil
        }
        return try? SocketAddress(ipAddress: host, port: port)
    }
}
