/// What a ``MediaSession`` sends: a sequence of frames, each one or more RTP packets sent back to
/// back, with the time to the next frame. Audio is one packet every 20 ms; a video frame is
/// several packets at the frame rate; a probe train is a burst of packets.
public protocol MediaSource: Sendable {
    /// The RTP payload type of the packets.
    var payloadType: UInt8 { get }
    /// The next frame; `nil` ends the stream.
    mutating func nextFrame() -> MediaFrame?
}

/// One frame of a ``MediaSource``.
public struct MediaFrame: Sendable {
    /// The payloads, one RTP packet each, sharing the frame's timestamp; the marker bit goes on
    /// the last packet of a frame that ``marksLastPacket``.
    public var payloads: [[UInt8]]
    /// How far the RTP timestamp advances after this frame, in the payload's clock units.
    public var timestampIncrement: UInt32
    /// How long after this frame the next one is due.
    public var interval: Duration
    /// Whether the frame's last packet carries the marker bit (audio: the first frame of a
    /// talkspurt; video: the last packet of a frame).
    public var marksLastPacket: Bool
    /// The frame's audio level, 0…32767 (0 for video and probes).
    public var audioLevel: Int
    /// The payload type of this frame's packets when it is not the source's (an RFC 4733
    /// telephone event among audio frames); `nil` by default.
    public var payloadType: UInt8?
    /// How far before the stream's current timestamp this frame's packets are stamped: a
    /// telephone event's packets all carry the event's start (RFC 4733 §2.5.1.2); 0 by default.
    public var timestampLag: UInt32

    /// Creates a frame.
    public init(
        payloads: [[UInt8]], timestampIncrement: UInt32, interval: Duration, marksLastPacket: Bool = false, audioLevel: Int = 0,
        payloadType: UInt8? = nil, timestampLag: UInt32 = 0
    ) {
        self.payloads = payloads
        self.timestampIncrement = timestampIncrement
        self.interval = interval
        self.marksLastPacket = marksLastPacket
        self.audioLevel = audioLevel
        self.payloadType = payloadType
        self.timestampLag = timestampLag
    }
}
