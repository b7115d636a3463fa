import PreflightCore

/// A signaling URL taken apart: `ws://` or `wss://`, host, port and the request target.
struct SignalingURL: Sendable, Hashable {
    /// Whether the scheme is `wss`.
    var isSecure: Bool
    /// The host: a name, or an address literal without brackets.
    var host: String
    /// The port; 80 or 443 when the URL has none.
    var port: Int
    /// The path and query, `/` when the URL has none.
    var target: String

    /// Whether ``host`` is an IPv4 or IPv6 address literal (no SNI is sent for it, and its
    /// certificate must name the address).
    var isAddressLiteral: Bool {
        host.contains(":") || (host.split(separator: ".", omittingEmptySubsequences: false).count == 4
            && host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { UInt8($0) != nil })
    }

    /// The `Host` header: the host (bracketed when IPv6) and the port when it is not the default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// Parses `ws://host[:port][/path][?query]` or `wss://…`.
    /// - Throws: ``PreflightError`` `.signalingConnectionError` for another scheme, no host or a bad port.
    init(_ text: String) throws(PreflightError) {
        func invalid(_ why: String) -> PreflightError {
            PreflightError(code: .signalingConnectionError, message: "signaling: bad URL \(text): \(why)")
        }
        let lowered = text.lowercased()
        let rest: Substring
        if lowered.hasPrefix("wss://") {
            isSecure = true
            rest = text.dropFirst(6)
        } else if lowered.hasPrefix("ws://") {
            isSecure = false
            rest = text.dropFirst(5)
        } else {
            throw invalid("the scheme must be ws or wss")
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var remainder = rest[authorityEnd...]
        if let fragment = remainder.firstIndex(of: "#") { remainder = remainder[..<fragment] }
        target = remainder.isEmpty ? "/" : (remainder.hasPrefix("?") ? "/" + remainder : String(remainder))
        guard !authority.contains("@") else { throw invalid("user information is not allowed") }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw invalid("an unclosed [") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("text after ]") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw invalid("no host") }
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else { throw invalid("the port must be 1 to 65535") }
            port = number
        } else {
            port = isSecure ? 443 : 80
        }
    }
}
