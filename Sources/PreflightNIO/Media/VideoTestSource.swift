import PreflightCore

/// A connectivity check's video as a ``MediaSource``: every frame interval, the newest captured
/// picture cut into payloads by a ``VideoTestPacketizer`` (a frame's bytes at the profile's
/// bitrate, MTU-sized packets sent back to back, the marker on each frame's last packet, a
/// 90 kHz clock). Before the first picture arrives, frames go out empty (no packets).
public struct VideoTestSource: MediaSource {
    /// The video test stream's payload type.
    public var payloadType: UInt8 { SignalingMessage.ConnectivityCheck.videoPayloadType }
    var packetizer: VideoTestPacketizer
    let latestFrame: @Sendable () -> VideoFrame?

    /// Creates a source.
    /// - Parameters:
    ///   - packetizer: the bitrate, frame rate and payload size.
    ///   - latestFrame: the newest captured picture, at once; `nil` while there is none.
    public init(packetizer: VideoTestPacketizer, latestFrame: @escaping @Sendable () -> VideoFrame?) {
        self.packetizer = packetizer
        self.latestFrame = latestFrame
    }

    /// The next frame's packets.
    public mutating func nextFrame() -> MediaFrame? {
        let payloads = latestFrame().map { packetizer.payloads(for: $0) } ?? []
        return MediaFrame(
            payloads: payloads, timestampIncrement: packetizer.timestampIncrement, interval: packetizer.interval,
            marksLastPacket: true)
    }
}
