/// An IP address and port, as carried by STUN address attributes and ICE candidates.
///
/// The address is stored inline (two 64-bit words), so decoding one does not allocate.
public struct TransportAddress: Hashable, Sendable, CustomStringConvertible {
    /// The IP version, with its STUN address-family number (RFC 8489 §14.1).
    public enum Family: UInt8, Hashable, Sendable, CaseIterable {
        /// IPv4: 4 address bytes (STUN family 0x01).
        case ipv4 = 0x01
        /// IPv6: 16 address bytes (STUN family 0x02).
        case ipv6 = 0x02

        /// The number of address bytes: 4 or 16.
        @inlinable public var addressLength: Int { self == .ipv4 ? 4 : 16 }
    }

    /// IPv4 or IPv6.
    public let family: Family
    /// The port number.
    public var port: UInt16
    /// Address bytes 0–7 (IPv6), big-endian; zero for IPv4.
    @usableFromInline let high: UInt64
    /// Address bytes 8–15 (IPv6) or the 4 IPv4 bytes in the low 32 bits, big-endian.
    @usableFromInline let low: UInt64

    @inlinable
    init(family: Family, high: UInt64, low: UInt64, port: UInt16) {
        self.family = family
        self.high = high
        self.low = low
        self.port = port
    }

    /// Creates an address from its bytes: 4 for IPv4, 16 for IPv6; `nil` for any other count.
    @inlinable
    public init?(bytes: some Collection<UInt8>, port: UInt16) {
        var h: UInt64 = 0
        var l: UInt64 = 0
        switch bytes.count {
        case 4:
            for byte in bytes { l = l << 8 | UInt64(byte) }
            self.init(family: .ipv4, high: 0, low: l, port: port)
        case 16:
            var i = 0
            for byte in bytes {
                if i < 8 { h = h << 8 | UInt64(byte) } else { l = l << 8 | UInt64(byte) }
                i += 1
            }
            self.init(family: .ipv6, high: h, low: l, port: port)
        default:
            return nil
        }
    }

    /// Creates an IPv4 address from its four octets, e.g. `(192, 0, 2, 1)`.
    @inlinable
    public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, port: UInt16) {
        let value = UInt64(a) << 24 | UInt64(b) << 16 | UInt64(c) << 8 | UInt64(d)
        self.init(family: .ipv4, high: 0, low: value, port: port)
    }

    /// The address bytes in network order: 4 (IPv4) or 16 (IPv6).
    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(family.addressLength)
        appendAddressBytes(to: &out)
        return out
    }

    /// Appends the 4 or 16 address bytes in network order.
    @inlinable
    func appendAddressBytes(to out: inout [UInt8]) {
        if family == .ipv4 {
            for shift in stride(from: 24, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: low >> UInt64(shift)))
            }
        } else {
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: high >> UInt64(shift)))
            }
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: low >> UInt64(shift)))
            }
        }
    }

    /// The address without the port: "198.18.0.1" or "2001:db8::1" (RFC 5952 form).
    public var host: String {
        if family == .ipv4 {
            let v = UInt32(truncatingIfNeeded: low)
            return "\(v >> 24).\((v >> 16) & 0xFF).\((v >> 8) & 0xFF).\(v & 0xFF)"
        }
        var groups = [UInt16]()
        groups.reserveCapacity(8)
        for shift in stride(from: 48, through: 0, by: -16) {
            groups.append(UInt16(truncatingIfNeeded: high >> UInt64(shift)))
        }
        for shift in stride(from: 48, through: 0, by: -16) {
            groups.append(UInt16(truncatingIfNeeded: low >> UInt64(shift)))
        }
        // RFC 5952 §4.2: compress the longest run (first on a tie) of two or more zero groups.
        var bestStart = -1
        var bestLength = 0
        var runStart = -1
        for i in 0...8 {
            if i < 8, groups[i] == 0 {
                if runStart < 0 { runStart = i }
            } else if runStart >= 0 {
                if i - runStart > bestLength {
                    bestStart = runStart
                    bestLength = i - runStart
                }
                runStart = -1
            }
        }
        if bestLength < 2 { bestStart = -1 }
        var text = ""
        var i = 0
        while i < 8 {
            if i == bestStart {
                text += "::"
                i += bestLength
                continue
            }
            if !text.isEmpty, !text.hasSuffix(":") { text += ":" }
            text += String(groups[i], radix: 16)
            i += 1
        }
        return text
    }

    /// "198.18.0.1:3478" or "[2001:db8::1]:3478".
    public var description: String {
        family == .ipv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
    }
}
