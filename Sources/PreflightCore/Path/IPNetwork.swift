/// An address block, `address/prefix` (`10.0.0.0/8`, `fc00::/7`): what the path diagnosis counts
/// as private (a home or office network) beside RFC 1918's.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The block's address bytes (4 or 16), host bits cleared.
    public let bytes: [UInt8]
    /// Its prefix length.
    public let prefixLength: Int

    /// Parses `address/prefix`; a bare address is a block of one. Hostile input: anything else
    /// fails with 71002.
    public init(_ text: String) throws(PreflightError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let bytes = IPNetwork.addressBytes(String(first)) else {
            throw PreflightError(code: .invalidPathDiagnosisOption, message: "not an address block: \"\(text.prefix(64))\"")
        }
        let bits = bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), parts[1].count <= 3, (0...bits).contains(parsed) else {
                throw PreflightError(code: .invalidPathDiagnosisOption, message: "not a prefix length 0–\(bits): \"\(text.prefix(64))\"")
            }
            length = parsed
        }
        self.bytes = IPNetwork.masked(bytes, length)
        self.prefixLength = length
    }

    /// The blocks no public router answers from: RFC 1918, link-local (RFC 3927, RFC 4291),
    /// unique local IPv6 (RFC 4193). The shared space of carrier NAT (100.64.0.0/10, RFC 6598)
    /// is the provider's, so it is not among them: its hops are the access network.
    public static let privateBlocks: [IPNetwork] = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "fc00::/7", "fe80::/10"]
        .compactMap { try? IPNetwork($0) }

    /// Whether `address` (text) is in the block.
    public func contains(_ address: String) -> Bool {
        guard let other = IPNetwork.addressBytes(address), other.count == bytes.count else { return false }
        return IPNetwork.masked(other, prefixLength) == bytes
    }

    /// `address/prefix`.
    public var description: String { "\(IPNetwork.text(bytes))/\(prefixLength)" }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let keep = max(0, min(8, length - index * 8))
            return keep == 0 ? 0 : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
    }

    /// The bytes of a dotted IPv4 address or an IPv6 address (RFC 4291 text, `::` and an IPv4
    /// tail allowed, no zone); `nil` for anything else.
    public static func addressBytes(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        if !text.contains(":") { return ipv4(Substring(text)) }
        var halves = [text]
        if let gap = text.firstRange(of: "::") {
            halves = [String(text[..<gap.lowerBound]), String(text[gap.upperBound...])]
            guard halves[1].firstRange(of: "::") == nil, !halves[1].hasPrefix(":") else { return nil }
        }
        func groups(_ part: String) -> [UInt8]? {
            if part.isEmpty { return [] }
            var out: [UInt8] = []
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, field) in fields.enumerated() {
                if index == fields.count - 1, field.contains(".") {
                    guard let v4 = ipv4(field) else { return nil }
                    out += v4
                } else {
                    guard (1...4).contains(field.count), let value = UInt16(field, radix: 16) else { return nil }
                    out += [UInt8(value >> 8), UInt8(value & 0xFF)]
                }
            }
            return out
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    private static func ipv4(_ text: Substring) -> [UInt8]? {
        let fields = text.split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count == 4 else { return nil }
        var out: [UInt8] = []
        for field in fields {
            guard (1...3).contains(field.count), field.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt8(field) else { return nil }
            out.append(value)
        }
        return out
    }

    private static func text(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: bytes.count, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
