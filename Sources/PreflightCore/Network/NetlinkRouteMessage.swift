/// A message of Linux's `NETLINK_ROUTE` family as the network monitor reads it: links and their
/// addresses appearing and going (rtnetlink(7)), and the replies that end a dump.
///
/// The wire format (netlink(7)): each datagram holds one or more messages, each a 16-byte header
/// (length, type, flags, sequence, port) and a body, aligned to 4 bytes; a link's body is an
/// `ifinfomsg` (16 bytes) and an address's an `ifaddrmsg` (8 bytes), each followed by attributes
/// (2-byte length, 2-byte type, value, aligned to 4). Integers are in the host's byte order.
///
/// The kernel is the only sender the monitor accepts (port 0), but the parser treats the bytes as
/// hostile all the same: every length is checked, a name or kind is at most 64 bytes of text, and
/// a datagram yields at most ``maximumMessagesPerDatagram`` messages. Pure: no I/O.
public enum NetlinkRouteMessage: Sendable, Hashable {
    /// `RTM_NEWLINK` (`removed` false) or `RTM_DELLINK`.
    case link(Link)
    /// `RTM_NEWADDR` (`removed` false) or `RTM_DELADDR`.
    case address(Address)
    /// `NLMSG_DONE`: the end of a dump.
    case done(sequence: UInt32)
    /// `NLMSG_ERROR`: `errno` is 0 for an acknowledgement, else the error (negated, as the kernel
    /// sends it, made positive).
    case error(errno: Int32, sequence: UInt32)
    /// `NLMSG_OVERRUN`, or a message the monitor does not read (its type).
    case other(type: UInt16)

    /// A link: an interface.
    public struct Link: Sendable, Hashable {
        /// The interface index.
        public var index: Int32
        /// Whether it went away (`RTM_DELLINK`).
        public var removed: Bool
        /// `IFLA_IFNAME`.
        public var name: String?
        /// `ifi_flags` (`IFF_UP` 0x1, `IFF_LOOPBACK` 0x8, `IFF_RUNNING` 0x40, `IFF_LOWER_UP` 0x10000…).
        public var flags: UInt32
        /// `ifi_type`: the hardware type (`ARPHRD_*`).
        public var hardwareType: UInt16
        /// `IFLA_LINKINFO`'s `IFLA_INFO_KIND` (`veth`, `wireguard`…).
        public var kind: String?
        /// `IFLA_OPERSTATE` (RFC 2863: 6 up, 2 down, 0 unknown…).
        public var operationalState: UInt8?

        /// Creates a link record.
        public init(
            index: Int32, removed: Bool = false, name: String? = nil, flags: UInt32, hardwareType: UInt16, kind: String? = nil,
            operationalState: UInt8? = nil
        ) {
            self.index = index
            self.removed = removed
            self.name = name
            self.flags = flags
            self.hardwareType = hardwareType
            self.kind = kind
            self.operationalState = operationalState
        }

        /// `IFF_UP`, and the carrier (`IFF_RUNNING`, or `IFF_LOWER_UP`), and not operationally down.
        public var isUsable: Bool {
            flags & 0x1 != 0 && flags & (0x40 | 0x10000) != 0 && operationalState.map { $0 == 6 || $0 == 0 } ?? true
        }

        /// `IFF_LOOPBACK`.
        public var isLoopback: Bool { flags & 0x8 != 0 }
    }

    /// An address of an interface.
    public struct Address: Sendable, Hashable {
        /// The interface index.
        public var index: Int32
        /// Whether it went away (`RTM_DELADDR`).
        public var removed: Bool
        /// The address as text (IPv4 dotted, IPv6 RFC 5952): `IFA_LOCAL` when present (the local
        /// end of a point-to-point link), else `IFA_ADDRESS`; `nil` when neither was sent.
        public var address: String?
        /// Whether it is IPv6.
        public var isIPv6: Bool
        /// `ifa_prefixlen`.
        public var prefixLength: UInt8
        /// `ifa_scope` (0 global, 253 link, 254 host).
        public var scope: UInt8
        /// `IFA_FLAGS` when sent, else `ifa_flags` (`IFA_F_TENTATIVE` 0x40, `IFA_F_DADFAILED` 0x8,
        /// `IFA_F_DEPRECATED` 0x20…).
        public var flags: UInt32

        /// An address a call can use: global scope (or the loopback's host scope), not tentative,
        /// failed duplicate detection, or deprecated.
        public var isUsable: Bool {
            address != nil && flags & (0x40 | 0x8 | 0x20) == 0 && (scope == 0 || scope == 254)
        }
    }

    /// A datagram yields at most this many messages; the rest is ignored.
    public static let maximumMessagesPerDatagram = 4096
    /// A name, label or kind is read up to this many bytes.
    public static let maximumTextLength = 64

    static let headerSize = 16
    static let newLink: UInt16 = 16, deleteLink: UInt16 = 17, getLink: UInt16 = 18
    static let newAddress: UInt16 = 20, deleteAddress: UInt16 = 21, getAddress: UInt16 = 22

    /// The messages of one datagram, in order.
    /// - Throws: ``PreflightError`` `.truncated` when a header or body is shorter than its length
    ///   says (the messages before it are lost with it: the monitor then dumps again), `.malformed`
    ///   for a length under the header's size.
    public static func parse(_ datagram: ArraySlice<UInt8>) throws(PreflightError) -> [NetlinkRouteMessage] {
        var messages: [NetlinkRouteMessage] = []
        var offset = datagram.startIndex
        while datagram.endIndex - offset >= headerSize, messages.count < maximumMessagesPerDatagram {
            let length = Int(hostUInt32(datagram, at: offset))
            guard length >= headerSize else {
                throw PreflightError(code: .malformed, message: "netlink: a message of \(length) bytes, under its 16-byte header")
            }
            guard length <= datagram.endIndex - offset else {
                throw PreflightError(
                    code: .truncated, message: "netlink: a message of \(length) bytes with \(datagram.endIndex - offset) left")
            }
            let type = hostUInt16(datagram, at: offset + 4)
            let sequence = hostUInt32(datagram, at: offset + 8)
            let body = datagram[(offset + headerSize)..<(offset + length)]
            messages.append(try message(type: type, sequence: sequence, body: body))
            // Aligned to 4; the last message may end without padding.
            offset += min((length + 3) & ~3, datagram.endIndex - offset)
        }
        return messages
    }

    static func message(type: UInt16, sequence: UInt32, body: ArraySlice<UInt8>) throws(PreflightError) -> NetlinkRouteMessage {
        switch type {
        case 3:
            return .done(sequence: sequence)
        case 2:
            guard body.count >= 4 else { throw PreflightError(code: .truncated, message: "netlink: an error message without its code") }
            let code = Int32(bitPattern: hostUInt32(body, at: body.startIndex))
            return .error(errno: code == .min ? .max : -code, sequence: sequence)
        case newLink, deleteLink:
            guard body.count >= 16 else { throw PreflightError(code: .truncated, message: "netlink: a link message under 16 bytes") }
            let start = body.startIndex
            var link = Link(
                index: Int32(bitPattern: hostUInt32(body, at: start + 4)), removed: type == deleteLink,
                flags: hostUInt32(body, at: start + 8), hardwareType: hostUInt16(body, at: start + 2))
            for (attribute, value) in attributes(body.dropFirst(16)) {
                switch attribute {
                case 3: link.name = text(value)
                case 16: link.operationalState = value.first
                case 18:
                    // IFLA_LINKINFO: nested; IFLA_INFO_KIND is 1.
                    for (nested, nestedValue) in attributes(value) where nested == 1 { link.kind = text(nestedValue) }
                default: break
                }
            }
            return .link(link)
        case newAddress, deleteAddress:
            guard body.count >= 8 else { throw PreflightError(code: .truncated, message: "netlink: an address message under 8 bytes") }
            let start = body.startIndex
            let family = body[start]
            var address = Address(
                index: Int32(bitPattern: hostUInt32(body, at: start + 4)), removed: type == deleteAddress, address: nil,
                isIPv6: family == 10, prefixLength: body[start + 1], scope: body[start + 3], flags: UInt32(body[start + 2]))
            var local: String?
            var peer: String?
            for (attribute, value) in attributes(body.dropFirst(8)) {
                switch attribute {
                case 1: peer = ipAddress(value, family: family)
                case 2: local = ipAddress(value, family: family)
                case 8 where value.count >= 4: address.flags = hostUInt32(value, at: value.startIndex)
                default: break
                }
            }
            address.address = local ?? peer
            return .address(address)
        default:
            return .other(type: type)
        }
    }

    /// The attributes of `bytes`, in order; a short or overlong one ends the list.
    static func attributes(_ bytes: ArraySlice<UInt8>) -> [(UInt16, ArraySlice<UInt8>)] {
        var result: [(UInt16, ArraySlice<UInt8>)] = []
        var offset = bytes.startIndex
        while bytes.endIndex - offset >= 4, result.count < 256 {
            let length = Int(hostUInt16(bytes, at: offset))
            guard length >= 4, length <= bytes.endIndex - offset else { break }
            // The top two bits are flags (NLA_F_NESTED, NLA_F_NET_BYTEORDER).
            let type = hostUInt16(bytes, at: offset + 2) & 0x3FFF
            result.append((type, bytes[(offset + 4)..<(offset + length)]))
            offset += min((length + 3) & ~3, bytes.endIndex - offset)
        }
        return result
    }

    /// A NUL-terminated name: up to the NUL, at most ``maximumTextLength`` bytes, as UTF-8
    /// (invalid bytes replaced).
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        return String(decoding: bytes[bytes.startIndex..<end].prefix(maximumTextLength), as: UTF8.self)
    }

    static func ipAddress(_ bytes: ArraySlice<UInt8>, family: UInt8) -> String? {
        guard (family == 2 && bytes.count == 4) || (family == 10 && bytes.count == 16) else { return nil }
        return TransportAddress(bytes: bytes, port: 0)?.host
    }

    static func hostUInt16(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt16 {
        var value: UInt16 = 0
        withUnsafeMutableBytes(of: &value) { raw in
            for index in 0..<2 { raw[index] = bytes[offset + index] }
        }
        return value
    }

    static func hostUInt32(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        withUnsafeMutableBytes(of: &value) { raw in
            for index in 0..<4 { raw[index] = bytes[offset + index] }
        }
        return value
    }

    /// What to dump.
    public enum Dump: Sendable {
        /// Every link (`RTM_GETLINK`).
        case links
        /// Every address of both families (`RTM_GETADDR`).
        case addresses
    }

    /// A dump request: `NLM_F_REQUEST | NLM_F_DUMP` with an `rtgenmsg` of family `AF_UNSPEC`.
    public static func dumpRequest(_ dump: Dump, sequence: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
        }
        append(UInt32(20))
        append(dump == .links ? getLink : getAddress)
        append(UInt16(0x1 | 0x300))
        append(sequence)
        append(UInt32(0))
        bytes += [0, 0, 0, 0]
        return bytes
    }
}
