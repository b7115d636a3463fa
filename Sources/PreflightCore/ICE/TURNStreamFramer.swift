/// Splits the byte stream of a TURN connection over TCP or TLS into its messages (RFC 8656
/// §12.5): STUN messages (first two bits 00, 20-byte header plus the length field) and
/// ChannelData messages (first two bits 01, 4-byte header plus the length, padded to a multiple
/// of four on a stream).
public struct TURNStreamFramer: Sendable {
    var buffer: [UInt8] = []
    var start = 0
    /// The largest message accepted: a STUN message cannot exceed 20 + 65535 bytes, nor can
    /// ChannelData.
    public static let maximumFrameLength = 20 + 0xFFFF

    /// Creates an empty framer.
    public init() {}

    /// Appends received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message, or `nil` until more bytes arrive.
    /// - Throws: ``PreflightError/Code/malformed`` when the stream holds neither STUN nor
    ///   ChannelData (first bits 10 or 11): the connection must be closed, nothing after it
    ///   can be framed.
    public mutating func next() throws(PreflightError) -> [UInt8]? {
        let available = buffer.count - start
        guard available >= 4 else { return nil }
        let first = buffer[start]
        let length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
        let frame: Int
        let consumed: Int
        switch first >> 6 {
        case 0:
            frame = 20 + length
            consumed = frame
        case 1:
            frame = 4 + length
            consumed = (frame + 3) & ~3
        default:
            throw PreflightError(
                code: .malformed,
                message: "TURN over TCP: a message starts with 0x\(String(first, radix: 16)), neither STUN nor ChannelData")
        }
        guard available >= consumed else { return nil }
        let bytes = Array(buffer[start..<(start + frame)])
        start += consumed
        if start > 65536, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return bytes
    }
}
