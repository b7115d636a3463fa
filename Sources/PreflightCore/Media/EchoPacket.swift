/// An echo as the edge sends it, written straight into the caller's memory: the bytes
/// `RTPPacket(…, headerExtension: MediaExtension.echoExtension(report), payload:).encoded()`
/// would make, without the arrays that path allocates per packet (the echo is the edge's
/// hottest path: one per datagram it receives).
public struct EchoPacket: Sendable, Hashable {
    /// The marker bit, copied from the client's packet.
    public var marker: Bool
    /// The payload type, copied from the client's packet.
    public var payloadType: UInt8
    /// The edge stream's sequence number.
    public var sequenceNumber: UInt16
    /// The edge stream's RTP timestamp.
    public var timestamp: UInt32
    /// The edge stream's SSRC.
    public var ssrc: UInt32
    /// The echo fields (``MediaExtension`` elements 1–4).
    public var report: EchoReport

    /// Creates a packet.
    public init(marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, report: EchoReport) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.report = report
    }

    /// The header and extension: 12 bytes of RTP header, then the one-byte-form extension
    /// (4 bytes of profile and length, elements of 1 + 8, 1 + 6, 1 + 12 and 1 + 8 bytes, 2 of padding).
    public static let headerSize = 12 + 4 + 40

    /// The whole packet's size for a payload of `payloadCount` bytes.
    public static func size(payloadCount: Int) -> Int { headerSize + payloadCount }

    /// Writes the packet with `payload` to the start of `destination`.
    /// - Returns: the bytes written, or `nil` when `destination` is smaller than
    ///   ``size(payloadCount:)`` (nothing is written then).
    public func write(payload: UnsafeRawBufferPointer, to destination: UnsafeMutableRawBufferPointer) -> Int? {
        let size = Self.size(payloadCount: payload.count)
        guard destination.count >= size else { return nil }
        var writer = RTPFieldWriter(destination)
        writer.header(marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc, extensionWords: 10)
        // One-byte form: ID in the high nibble, length − 1 in the low one (RFC 8285 §4.2).
        writer.put(UInt64(MediaExtension.sendTimeID << 4 | 7), bytes: 1)
        writer.put(report.clientSendMicroseconds, bytes: 8)
        writer.put(UInt64(MediaExtension.echoID << 4 | 5), bytes: 1)
        writer.put(UInt64(report.originalSequence), bytes: 2)
        writer.put(UInt64(report.holdMicroseconds), bytes: 4)
        writer.put(UInt64(MediaExtension.uplinkID << 4 | 11), bytes: 1)
        writer.put(UInt64(report.uplink.expected), bytes: 4)
        writer.put(UInt64(report.uplink.received), bytes: 4)
        writer.put(UInt64(report.uplink.jitterMicroseconds), bytes: 4)
        writer.put(UInt64(MediaExtension.edgeSendTimeID << 4 | 7), bytes: 1)
        writer.put(report.edgeSendMicroseconds, bytes: 8)
        writer.put(0, bytes: 2)
        writer.copy(payload)
        return size
    }
}
