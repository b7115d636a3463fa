/// The 8-byte header of a video test stream payload (``VideoTestPacketizer``): the frame's
/// number, the packet's index in the frame and the frame's packet count, big-endian. A receiver
/// counts whole frames from it.
public struct VideoTestPayload: Sendable, Hashable {
    /// The frame's number, counting from 0 (wrapping).
    public var frameNumber: UInt32
    /// The packet's index within its frame, from 0.
    public var index: UInt16
    /// The frame's packets, at least 1.
    public var count: UInt16

    /// The header's size, bytes.
    public static let headerSize = 8

    /// Creates a header.
    public init(frameNumber: UInt32, index: UInt16, count: UInt16) {
        self.frameNumber = frameNumber
        self.index = index
        self.count = count
    }

    /// Reads the header at the start of `payload`.
    /// - Throws: 70002 for a payload shorter than the header, a count of 0, or an index past it.
    public init(parsing payload: UnsafeRawBufferPointer) throws(PreflightError) {
        guard payload.count >= Self.headerSize else {
            throw PreflightError(code: .malformed, message: "video test payload: \(payload.count) bytes, shorter than its 8-byte header")
        }
        func byte(_ offset: Int) -> UInt32 { UInt32(payload[offset]) }
        frameNumber = byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3)
        index = UInt16(payload[4]) << 8 | UInt16(payload[5])
        count = UInt16(payload[6]) << 8 | UInt16(payload[7])
        guard count > 0, index < count else {
            throw PreflightError(code: .malformed, message: "video test payload: packet \(index) of \(count)")
        }
    }

    /// The header's bytes.
    public var header: [UInt8] {
        [
            UInt8(truncatingIfNeeded: frameNumber >> 24), UInt8(truncatingIfNeeded: frameNumber >> 16),
            UInt8(truncatingIfNeeded: frameNumber >> 8), UInt8(truncatingIfNeeded: frameNumber),
            UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index),
            UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count),
        ]
    }
}
