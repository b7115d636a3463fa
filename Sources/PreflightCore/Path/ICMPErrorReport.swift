/// What one read of a probe socket's error queue says (Linux `recvmsg(…, MSG_ERRQUEUE)` with
/// `IP_RECVERR` or `IPV6_RECVERR` on): which ICMP error came back, from whom, for which probe.
/// Pure: it reads the control messages' bytes and the returned payload, so that it can be fuzzed
/// and tested without a socket (`FuzzPathErrorQueue`).
///
/// The control buffer is a sequence of `cmsghdr` (`cmsg_len` a machine word, then level and type
/// as 32-bit integers, data aligned to a word). The one read here is `SOL_IP`/`IP_RECVERR` (0/11)
/// or `SOL_IPV6`/`IPV6_RECVERR` (41/25), whose data is a `sock_extended_err` (errno 32 bits,
/// origin, type, code, pad, info and data 32 bits each) followed by the offender's `sockaddr_in`
/// or `sockaddr_in6`. The payload is what the ICMP error quoted of the probe's UDP payload: a
/// STUN Binding request's first 20 bytes carry the probe's transaction ID.
public struct ICMPErrorReport: Sendable, Hashable {
    /// What the ICMP error says.
    public enum Kind: Sendable, Hashable {
        /// Time exceeded in transit (ICMP 11/0, ICMPv6 3/0): a router on the way.
        case timeExceeded
        /// Destination unreachable (ICMP 3, ICMPv6 1) with its code: 3 (port) from the destination
        /// host, others from a router refusing.
        case unreachable(code: UInt8)
        /// Any other ICMP error (parameter problem, packet too big…).
        case other(type: UInt8, code: UInt8)
    }

    /// What the error says.
    public let kind: Kind
    /// The address of whoever sent the ICMP error.
    public let offender: String
    /// The probe's transaction ID when the quote carried it.
    public let transactionID: STUNTransactionID?

    /// Creates a report (for tests and replays).
    public init(kind: Kind, offender: String, transactionID: STUNTransactionID?) {
        self.kind = kind
        self.offender = offender
        self.transactionID = transactionID
    }

    static let levelIP: Int32 = 0
    static let optionIPRecvErr: Int32 = 11
    static let levelIPv6: Int32 = 41
    static let optionIPv6RecvErr: Int32 = 25
    static let originICMP: UInt8 = 2
    static let originICMPv6: UInt8 = 3

    /// Reads the error out of `control` (the `msg_control` bytes `recvmsg` filled) and `payload`;
    /// `nil` when there is no ICMP error in it (a local error, an unknown origin, a truncated or
    /// malformed message). `wordSize` is the machine's (`cmsg_len`'s size and the alignment).
    public init?(control: [UInt8], payload: ArraySlice<UInt8>, wordSize: Int = MemoryLayout<Int>.size) {
        guard wordSize == 4 || wordSize == 8 else { return nil }
        let headerSize = wordSize + 8
        var offset = 0
        while offset + headerSize <= control.count {
            let length = Self.word(control, at: offset, size: wordSize)
            guard length >= headerSize, length <= control.count - offset else { return nil }
            let level = Int32(bitPattern: UInt32(truncatingIfNeeded: Self.word(control, at: offset + wordSize, size: 4)))
            let type = Int32(bitPattern: UInt32(truncatingIfNeeded: Self.word(control, at: offset + wordSize + 4, size: 4)))
            let dataStart = offset + Self.aligned(headerSize, wordSize)
            if dataStart <= offset + length,
                (level == Self.levelIP && type == Self.optionIPRecvErr) || (level == Self.levelIPv6 && type == Self.optionIPv6RecvErr)
            {
                self.init(extendedError: control[dataStart..<(offset + length)], payload: payload)
                return
            }
            offset += Self.aligned(length, wordSize)
        }
        return nil
    }

    /// Reads a `sock_extended_err` and the offender after it.
    init?(extendedError data: ArraySlice<UInt8>, payload: ArraySlice<UInt8>) {
        let bytes = Array(data)
        guard bytes.count >= 16 else { return nil }
        let origin = bytes[4], type = bytes[5], code = bytes[6]
        let address = Array(bytes[16...])
        guard let offender = Self.socketAddress(address) else { return nil }
        switch origin {
        case Self.originICMP:
            switch type {
            case 11: kind = .timeExceeded
            case 3: kind = .unreachable(code: code)
            default: kind = .other(type: type, code: code)
            }
        case Self.originICMPv6:
            switch type {
            case 3: kind = .timeExceeded
            case 1: kind = .unreachable(code: code)
            default: kind = .other(type: type, code: code)
            }
        default:
            return nil
        }
        self.offender = offender
        self.transactionID = Self.probeTransactionID(payload)
    }

    /// The transaction ID of a quoted STUN Binding request (type 0x0001 and the magic cookie).
    public static func probeTransactionID(_ payload: ArraySlice<UInt8>) -> STUNTransactionID? {
        let bytes = Array(payload.prefix(20))
        guard bytes.count == 20, bytes[0] == 0, bytes[1] == 1, bytes[4...7].elementsEqual([0x21, 0x12, 0xA4, 0x42]) else { return nil }
        return STUNTransactionID(bytes: bytes[8..<20])
    }

    /// The text of a `sockaddr_in` or `sockaddr_in6` (family in the machine's byte order).
    static func socketAddress(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 8 else { return nil }
        let family = UInt16(littleEndian: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
        switch family {
        case 2:
            return TransportAddress(bytes: bytes[4..<8], port: 0)?.host
        case 10 where bytes.count >= 24, 30 where bytes.count >= 24:
            return TransportAddress(bytes: bytes[8..<24], port: 0)?.host
        default:
            return nil
        }
    }

    private static func word(_ bytes: [UInt8], at offset: Int, size: Int) -> Int {
        var value: UInt64 = 0
        for index in (0..<size).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return Int(truncatingIfNeeded: min(value, UInt64(Int32.max)))
    }

    private static func aligned(_ value: Int, _ word: Int) -> Int { (value + word - 1) / word * word }
}
