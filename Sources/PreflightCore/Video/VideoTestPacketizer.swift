/// Cuts captured frames into the RTP payloads of a connectivity check's video test stream: at a
/// video profile's bitrate, a frame's worth of bytes every frame interval (30 fps by default),
/// in packets of at most ``maximumPayloadSize`` bytes sent back to back, as a real encoder's
/// frames go out. Preflight has no video encoder: each payload is a ``VideoTestPayload`` header
/// followed by the frame's own luma bytes, sampled across the whole picture, so the network
/// carries real captured bytes in the shape (sizes, bursts, rate) of an encoded stream.
public struct VideoTestPacketizer: Sendable {
    /// The target bitrate of RTP payloads, bits per second.
    public let bitrate: Int
    /// Frames per second.
    public let frameRate: Int
    /// The largest payload, bytes: 1,200 by default, so that a packet with its RTP, UDP and IP
    /// headers (and a TURN channel header) stays under a 1,280-byte IPv6 MTU.
    public let maximumPayloadSize: Int
    /// The number of the next frame.
    public private(set) var frameNumber: UInt32 = 0
    /// Bytes owed from earlier frames' rounding, so the mean rate is exact.
    private var carry = 0.0

    /// The range of bitrates a check may publish: 100 to 1,000 kbps.
    public static let bitrateRange = 100_000...1_000_000

    /// The RTP clock of video, Hz (RFC 3551).
    public static let clockRate = 90_000

    /// Creates a packetizer.
    /// - Throws: 70005 for a bitrate outside ``bitrateRange``, a frame rate outside 1…60, or a
    ///   payload size outside 200…1,200.
    public init(bitrate: Int, frameRate: Int = 30, maximumPayloadSize: Int = 1200) throws(PreflightError) {
        guard Self.bitrateRange.contains(bitrate), (1...60).contains(frameRate), (200...1200).contains(maximumPayloadSize) else {
            throw PreflightError(
                code: .invalidArgument,
                message: "video test stream: bitrate \(bitrate) bps (100,000–1,000,000), \(frameRate) fps (1–60), payloads of \(maximumPayloadSize) bytes (200–1,200)")
        }
        self.bitrate = bitrate
        self.frameRate = frameRate
        self.maximumPayloadSize = maximumPayloadSize
    }

    /// The RTP timestamp step between frames (90 kHz clock).
    public var timestampIncrement: UInt32 { UInt32(Self.clockRate / frameRate) }

    /// The time between frames.
    public var interval: Duration { .nanoseconds(1_000_000_000 / Int64(frameRate)) }

    /// The payloads of the next frame: its byte share of the bitrate in equal packets.
    public mutating func payloads(for frame: VideoFrame) -> [[UInt8]] {
        carry += Double(bitrate) / 8 / Double(frameRate)
        let budget = max(VideoTestPayload.headerSize + 1, Int(carry.rounded(.down)))
        let perPacket = maximumPayloadSize - VideoTestPayload.headerSize
        let count = max(1, (budget - 1) / maximumPayloadSize + 1)
        let body = max(1, min(perPacket, budget / count - VideoTestPayload.headerSize))
        // What equal packets leave out of the budget is owed to the next frame.
        carry -= Double(count * (body + VideoTestPayload.headerSize))
        let luma = frame.luma
        // A stride that walks the whole picture across the frame's packets.
        let stride = max(1, luma.count / max(1, body * count))
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(count)
        var position = 0
        for index in 0..<count {
            var payload = VideoTestPayload(frameNumber: frameNumber, index: UInt16(index), count: UInt16(count)).header
            payload.reserveCapacity(VideoTestPayload.headerSize + body)
            for _ in 0..<body {
                payload.append(luma.isEmpty ? 0 : luma[position % luma.count])
                position += stride
            }
            payloads.append(payload)
        }
        frameNumber &+= 1
        return payloads
    }
}
