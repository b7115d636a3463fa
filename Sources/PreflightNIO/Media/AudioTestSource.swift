import PreflightCore

/// The preflight test's audio: the ``TestSignal`` tone in G.711 μ-law, 20 ms a packet.
public struct AudioTestSource: MediaSource {
    /// PCMU.
    public var payloadType: UInt8 { MuLaw.payloadType }
    let signal = TestSignal()
    var frame = 0

    /// Creates the source at its first frame.
    public init() {}

    /// The next 20 ms of the tone; the first frame is marked (the start of a talkspurt).
    public mutating func nextFrame() -> MediaFrame? {
        let pcm = signal.frame(frame)
        defer { frame += 1 }
        return MediaFrame(
            payloads: [MuLaw.encode(pcm)], timestampIncrement: 160, interval: .milliseconds(20), marksLastPacket: frame == 0,
            audioLevel: AudioLevel.peak(of: pcm))
    }
}
