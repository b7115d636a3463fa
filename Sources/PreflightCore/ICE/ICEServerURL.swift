/// A `stun:`, `stuns:`, `turn:` or `turns:` URI (RFC 7064, RFC 7065), parsed.
///
/// `turn:host:port?transport=udp|tcp`; without a port, 3478 (`stun:`/`turn:`) or 5349
/// (`stuns:`/`turns:`); without a transport, UDP for `turn:` and TCP (TLS) for `turns:`.
public struct ICEServerURL: Sendable, Hashable, CustomStringConvertible {
    /// The URI scheme.
    public enum Scheme: String, Sendable, Hashable {
        /// `stun:`: a STUN server for server-reflexive candidates.
        case stun
        /// `stuns:`: STUN over TLS.
        case stuns
        /// `turn:`: a TURN server (UDP or TCP).
        case turn
        /// `turns:`: a TURN server over TLS.
        case turns

        /// Whether the scheme names a TURN server.
        public var isTURN: Bool { self == .turn || self == .turns }
        /// Whether the scheme runs over TLS.
        public var isSecure: Bool { self == .stuns || self == .turns }
    }

    /// How the client reaches the server.
    public enum Transport: String, Sendable, Hashable {
        /// Datagrams.
        case udp
        /// A TCP stream (TLS for `turns:`/`stuns:`).
        case tcp
    }

    /// The scheme.
    public var scheme: Scheme
    /// The host: an IPv4 or IPv6 literal, or a name.
    public var host: String
    /// The port.
    public var port: Int
    /// The transport to the server.
    public var transport: Transport
    /// The URI as given (the report's candidate `url`).
    public var description: String

    /// Parses a URI.
    /// - Throws: ``PreflightError/Code/invalidArgument`` naming what is wrong: an unknown scheme, a
    ///   missing host, a port outside 1…65535, an unknown transport, or `turns:` over UDP.
    public init(_ text: String) throws(PreflightError) {
        func invalid(_ why: String) -> PreflightError {
            PreflightError(code: .invalidArgument, message: "ICE server URL \"\(text)\": \(why)")
        }
        guard let colon = text.firstIndex(of: ":") else { throw invalid("no scheme (stun:, stuns:, turn:, turns:)") }
        guard let scheme = Scheme(rawValue: text[..<colon].lowercased()) else {
            throw invalid("unknown scheme \"\(text[..<colon])\" (stun:, stuns:, turn:, turns:)")
        }
        var rest = Substring(text[text.index(after: colon)...])
        var transport: Transport = scheme.isSecure ? .tcp : .udp
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...]
            rest = rest[..<question]
            guard scheme.isTURN else { throw invalid("a stun: URI has no query") }
            guard query.hasPrefix("transport="), let value = Transport(rawValue: query.dropFirst(10).lowercased()) else {
                throw invalid("the query must be transport=udp or transport=tcp")
            }
            transport = value
        }
        if scheme.isSecure, transport == .udp { throw invalid("TLS needs transport=tcp (DTLS is not supported)") }
        if rest.hasPrefix("//") { throw invalid("the URI has no \"//\" (RFC 7064: stun:host:port)") }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw invalid("an IPv6 literal lacks its \"]\"") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("unexpected \"\(after)\" after the host") }
                portText = after.dropFirst()
            }
        } else if let portColon = rest.lastIndex(of: ":") {
            host = rest[..<portColon]
            portText = rest[rest.index(after: portColon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw invalid("no host") }
        var port = scheme.isSecure ? 5349 : 3478
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw invalid("the port \"\(portText)\" is not 1…65535")
            }
            port = value
        }
        self.scheme = scheme
        self.host = String(host)
        self.port = port
        self.transport = transport
        self.description = text
    }
}
