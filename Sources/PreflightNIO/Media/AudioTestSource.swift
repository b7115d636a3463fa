import PreflightCore

/// The preflight test's audio: the ``TestSignal`` in the call's codec, 20 ms a packet.
public struct AudioTestSource: MediaSource {
    /// The codec's payload type.
    public var payloadType: UInt8 { codec.format.payloadType }
    let codec: any AudioCodec
    let signal = TestSignal()
    var frame = 0

    /// Creates the source at its first frame.
    /// - Parameter codec: what the frames are encoded with; PCMU by default.
    public init(codec: any AudioCodec = PCMUAudioCodec()) {
        self.codec = codec
    }

    /// The next 20 ms of the tone; the first frame is marked (the start of a talkspurt).
    public mutating func nextFrame() -> MediaFrame? {
        let pcm = signal.frame(frame)
        defer { frame += 1 }
        return MediaFrame(encoding: pcm, with: codec, marksLastPacket: frame == 0)
    }
}
