/// A packet the edge's bridge sends a call's other party, written straight into the caller's
/// memory: the bytes `RTPPacket(…, headerExtension: MediaExtension.edgeExtension(sendMicroseconds:),
/// payload:).encoded()` would make, without the arrays that path allocates per packet (the bridge
/// sends one per packet either party sends).
public struct BridgedPacket: Sendable, Hashable {
    /// The marker bit, copied from the sender's packet.
    public var marker: Bool
    /// The payload type, copied from the sender's packet.
    public var payloadType: UInt8
    /// The receiving leg's stream: its sequence number, timestamp and SSRC.
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// The edge's send time (``MediaExtension`` element 4), µs.
    public var edgeSendMicroseconds: UInt64

    /// Creates a packet.
    public init(marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, edgeSendMicroseconds: UInt64) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.edgeSendMicroseconds = edgeSendMicroseconds
    }

    /// The header and extension: 12 bytes of RTP header, then the one-byte-form extension (4
    /// bytes of profile and length, one element of 1 + 8 bytes, 3 of padding).
    public static let headerSize = 12 + 4 + 12

    /// The whole packet's size for a payload of `payloadCount` bytes.
    public static func size(payloadCount: Int) -> Int { headerSize + payloadCount }

    /// Writes the packet with `payload` to the start of `destination`.
    /// - Returns: the bytes written, or `nil` when `destination` is smaller than
    ///   ``size(payloadCount:)`` (nothing is written then).
    public func write(payload: UnsafeRawBufferPointer, to destination: UnsafeMutableRawBufferPointer) -> Int? {
        let size = Self.size(payloadCount: payload.count)
        guard destination.count >= size else { return nil }
        var writer = RTPFieldWriter(destination)
        writer.header(marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc, extensionWords: 3)
        writer.put(UInt64(MediaExtension.edgeSendTimeID << 4 | 7), bytes: 1)
        writer.put(edgeSendMicroseconds, bytes: 8)
        writer.put(0, bytes: 3)
        writer.copy(payload)
        return size
    }
}

/// Big-endian fields written one after another into memory the caller checked is large enough:
/// the packets the edge writes in place (``EchoPacket``, ``BridgedPacket``).
struct RTPFieldWriter {
    let destination: UnsafeMutableRawBufferPointer
    private(set) var offset = 0

    init(_ destination: UnsafeMutableRawBufferPointer) {
        self.destination = destination
    }

    /// `value`'s low `bytes` bytes, big-endian: one store for 1, 2, 4 and 8 (a byte loop per
    /// field was a quarter of the edge's own time per echo, measured with perf).
    @inline(__always)
    mutating func put(_ value: UInt64, bytes: Int) {
        switch bytes {
        case 1: destination.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: offset, as: UInt8.self)
        case 2: destination.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, toByteOffset: offset, as: UInt16.self)
        case 4: destination.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, toByteOffset: offset, as: UInt32.self)
        case 8: destination.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
        default:
            for index in 0..<bytes {
                destination[offset + index] = UInt8(truncatingIfNeeded: value >> UInt64(8 * (bytes - 1 - index)))
            }
        }
        offset += bytes
    }

    /// The fixed header (version 2, no padding, an extension, no CSRC) and the extension's
    /// one-byte-form profile with `extensionWords` words of elements to follow.
    @inline(__always)
    mutating func header(marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, extensionWords: Int) {
        put(0x90, bytes: 1)
        put(UInt64(payloadType & 0x7F) | (marker ? 0x80 : 0), bytes: 1)
        put(UInt64(sequenceNumber), bytes: 2)
        put(UInt64(timestamp), bytes: 4)
        put(UInt64(ssrc), bytes: 4)
        put(UInt64(RTPHeaderExtension.oneByteProfile), bytes: 2)
        put(UInt64(extensionWords), bytes: 2)
    }

    @inline(__always)
    mutating func copy(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: destination[offset..<(offset + bytes.count)]).copyMemory(
            from: UnsafeRawBufferPointer(start: base, count: bytes.count))
        offset += bytes.count
    }
}
