import PreflightCore

extension MediaFrame {
    /// 20 ms of 8 kHz audio as one packet of `codec`, with its level; a frame that does not
    /// encode is sent as no packet, its time and timestamp still passing.
    public init(encoding pcm: [Int16], with codec: any AudioCodec, marksLastPacket: Bool = false) {
        self.init(
            payloads: codec.encode(pcm).map { [$0] } ?? [], timestampIncrement: codec.frameTimestampIncrement,
            interval: .milliseconds(20), marksLastPacket: marksLastPacket, audioLevel: AudioLevel.peak(of: pcm))
    }
}
