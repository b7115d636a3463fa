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
    /// tail allowed, no zone), as ``TransportAddress`` parses them; `nil` for anything else.
    public static func addressBytes(_ text: String) -> [UInt8]? {
        TransportAddress(host: text, port: 0)?.bytes
    }

    private static func text(_ bytes: [UInt8]) -> String {
        TransportAddress(bytes: bytes, port: 0)?.host ?? ""
    }
}
