/// The RTP header extension elements of Preflight's test media (RFC 8285 one-byte form, profile
/// `0xBEDE`). They turn the edge's echo into a measurement: per-packet RTT with the edge's hold
/// time removed, and loss and jitter split into uplink and downlink (docs/protocol.md, docs/measurement.md).
///
/// | ID | bytes | who writes it | content |
/// |---|---|---|---|
/// | 1 | 8 | the sender of a packet | send time, µs on the sender's monotonic clock |
/// | 2 | 6 | the edge, on an echo | the client packet's sequence number (2), edge hold time µs (4) |
/// | 3 | 12 | the edge, on an echo | uplink so far: packets expected (4), received (4), RFC 3550 jitter µs (4) |
/// | 4 | 8 | the edge, on an echo | the edge's send time, µs on its monotonic clock |
///
/// All fields are big-endian unsigned integers.
public enum MediaExtension {
    /// Element ID of the sender's send time.
    public static let sendTimeID: UInt8 = 1
    /// Element ID of the echo's original sequence number and hold time.
    public static let echoID: UInt8 = 2
    /// Element ID of the edge's cumulative uplink statistics.
    public static let uplinkID: UInt8 = 3
    /// Element ID of the edge's send time on an echo.
    public static let edgeSendTimeID: UInt8 = 4
    /// The clock rate send times are expressed in when fed to ``ReceiveStatistics``: 1 MHz (µs).
    public static let sendTimeClockRate = 1_000_000

    /// The extension a client puts on each packet: its send time.
    public static func clientExtension(sendMicroseconds: UInt64) -> RTPHeaderExtension {
        sendTime(id: sendTimeID, sendMicroseconds)
    }

    /// The extension the edge puts on a packet it originates (record-playback): its send time.
    public static func edgeExtension(sendMicroseconds: UInt64) -> RTPHeaderExtension {
        sendTime(id: edgeSendTimeID, sendMicroseconds)
    }

    /// One 8-byte element in the one-byte form, written directly (it goes on every packet): the
    /// element's header (ID, length − 1), the value big-endian, 3 bytes of padding to a word. The
    /// same bytes ``RTPHeaderExtension/oneByte(_:)`` makes of it (tested).
    static func sendTime(id: UInt8, _ value: UInt64) -> RTPHeaderExtension {
        var data = [UInt8](repeating: 0, count: 12)
        data[0] = id << 4 | 7
        for index in 0..<8 { data[1 + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(index))) }
        return RTPHeaderExtension(profile: RTPHeaderExtension.oneByteProfile, data: data)
    }

    /// The extension the edge puts on an echo.
    public static func echoExtension(_ echo: EchoReport) -> RTPHeaderExtension {
        let info = Array(bytes(UInt64(echo.originalSequence)).suffix(2)) + bytes(UInt64(echo.holdMicroseconds)).suffix(4)
        let uplink =
            Array(bytes(UInt64(echo.uplink.expected)).suffix(4)) + bytes(UInt64(echo.uplink.received)).suffix(4)
            + bytes(UInt64(echo.uplink.jitterMicroseconds)).suffix(4)
        let elements: [RTPHeaderExtension.Element] = [
            .init(id: sendTimeID, data: bytes(echo.clientSendMicroseconds)),
            .init(id: echoID, data: info),
            .init(id: uplinkID, data: uplink),
            .init(id: edgeSendTimeID, data: bytes(echo.edgeSendMicroseconds)),
        ]
        return (try? RTPHeaderExtension.oneByte(elements))
            ?? RTPHeaderExtension(profile: RTPHeaderExtension.oneByteProfile, data: [])
    }

    /// The send time (element 1) of a parsed packet, if present and 8 bytes long.
    public static func sendTime(_ header: RTPHeader, in bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard let range = header.extensionElement(id: sendTimeID, in: bytes), range.count == 8 else { return nil }
        return integer(bytes, range)
    }

    /// The edge's send time (element 4) of a parsed packet, if present and 8 bytes long.
    public static func edgeSendTime(_ header: RTPHeader, in bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard let range = header.extensionElement(id: edgeSendTimeID, in: bytes), range.count == 8 else { return nil }
        return integer(bytes, range)
    }

    /// The echo fields of a packet the edge echoed; `nil` when any element is missing or the wrong size.
    public static func echoReport(_ header: RTPHeader, in bytes: UnsafeRawBufferPointer) -> EchoReport? {
        guard let send = header.extensionElement(id: sendTimeID, in: bytes), send.count == 8,
            let info = header.extensionElement(id: echoID, in: bytes), info.count == 6,
            let uplink = header.extensionElement(id: uplinkID, in: bytes), uplink.count == 12,
            let edgeSend = header.extensionElement(id: edgeSendTimeID, in: bytes), edgeSend.count == 8
        else { return nil }
        let lower = uplink.lowerBound
        return EchoReport(
            originalSequence: UInt16(integer(bytes, info.lowerBound..<(info.lowerBound + 2))),
            holdMicroseconds: UInt32(integer(bytes, (info.lowerBound + 2)..<info.upperBound)),
            clientSendMicroseconds: integer(bytes, send),
            edgeSendMicroseconds: integer(bytes, edgeSend),
            uplink: UplinkReport(
                expected: UInt32(integer(bytes, lower..<(lower + 4))),
                received: UInt32(integer(bytes, (lower + 4)..<(lower + 8))),
                jitterMicroseconds: UInt32(integer(bytes, (lower + 8)..<(lower + 12)))))
    }

    private static func bytes(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    private static func integer(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> UInt64 {
        var value: UInt64 = 0
        for index in range { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
