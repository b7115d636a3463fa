/// A TURN ChannelData message (RFC 8656 §12.4): a 4-byte header (channel number, data length) and the
/// application data, relayed to the peer bound to the channel.
///
/// Over UDP the data needs no padding; over TCP/TLS each message is padded to a multiple of 4 bytes
/// (`padded: true`), which is not counted in the length field.
public struct ChannelData: Hashable, Sendable {
    /// The channel numbers a client may bind: 0x4000–0x4FFF.
    public static let validChannelNumbers: ClosedRange<UInt16> = 0x4000...0x4FFF

    /// The channel number, 0x4000–0x4FFF.
    public let channelNumber: UInt16
    /// The application data (a slice of the received buffer when decoded).
    public let data: ArraySlice<UInt8>

    /// Creates a ChannelData message.
    /// - Throws: ``PreflightError/Code/invalidArgument`` when `channelNumber` is outside 0x4000–0x4FFF
    ///   or `data` is longer than 65535 bytes.
    public init(channelNumber: UInt16, data: ArraySlice<UInt8>) throws(PreflightError) {
        guard Self.validChannelNumbers.contains(channelNumber) else {
            throw PreflightError(
                code: .invalidArgument,
                message: "ChannelData: channel number 0x\(String(channelNumber, radix: 16)) is outside 0x4000–0x4fff")
        }
        guard data.count <= 0xFFFF else {
            throw PreflightError(
                code: .invalidArgument, message: "ChannelData: data is \(data.count) bytes, at most 65535 fit")
        }
        self.channelNumber = channelNumber
        self.data = data
    }

    /// Decodes a ChannelData message at the start of `bytes`.
    ///
    /// - Parameter padded: `false` for a UDP datagram: after the data at most 3 padding bytes may follow
    ///   (more is ``PreflightError/Code/malformed``). `true` for a stream (TCP/TLS): the padding to a
    ///   multiple of 4 must be present and bytes after it (the next frame) are ignored; see ``encodedLength(padded:)``.
    /// - Throws: ``PreflightError/Code/truncated`` when the header, data or (stream) padding is cut short;
    ///   ``PreflightError/Code/malformed`` for a channel number outside 0x4000–0x4FFF.
    @inlinable
    public init(decoding bytes: ArraySlice<UInt8>, padded: Bool = false) throws(PreflightError) {
        var reader = ByteReader(bytes, context: "ChannelData")
        let number = try reader.readUInt16("channel number")
        guard Self.validChannelNumbers.contains(number) else {
            throw PreflightError(
                code: .malformed,
                message: "ChannelData: channel number 0x\(String(number, radix: 16)) is outside 0x4000–0x4fff")
        }
        let length = Int(try reader.readUInt16("length"))
        let data = try reader.readBytes(length, "data")
        let pad = (4 - length % 4) % 4
        if padded {
            try reader.skip(pad, "padding")
        } else if reader.remaining > pad {
            throw PreflightError(
                code: .malformed,
                message: "ChannelData: \(reader.remaining) byte(s) follow \(length) byte(s) of data, at most \(pad) padding")
        }
        self.channelNumber = number
        self.data = data
    }

    /// Decodes a ChannelData message; see ``init(decoding:padded:)-(ArraySlice<UInt8>,_)``.
    @inlinable
    public init(decoding bytes: [UInt8], padded: Bool = false) throws(PreflightError) {
        try self.init(decoding: bytes[...], padded: padded)
    }

    /// The message size on the wire in bytes: 4 + data, plus padding to a multiple of 4 when `padded`.
    @inlinable
    public func encodedLength(padded: Bool = false) -> Int {
        let length = 4 + data.count
        return padded ? (length + 3) & ~3 : length
    }

    /// Encodes the message; with `padded` (TCP/TLS) zero bytes pad it to a multiple of 4.
    @inlinable
    public func encoded(padded: Bool = false) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(encodedLength(padded: true))
        out.append(UInt8(truncatingIfNeeded: channelNumber >> 8))
        out.append(UInt8(truncatingIfNeeded: channelNumber))
        out.append(UInt8(truncatingIfNeeded: data.count >> 8))
        out.append(UInt8(truncatingIfNeeded: data.count))
        out.append(contentsOf: data)
        if padded {
            let pad = (4 - data.count % 4) % 4
            if pad > 0 { out.append(contentsOf: repeatElement(0, count: pad)) }
        }
        return out
    }
}
