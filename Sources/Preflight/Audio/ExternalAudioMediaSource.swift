internal import PreflightCore
internal import PreflightNIO

/// A media session's source made of an ``AudioFrameSource``: each 20 ms frame in G.711 μ-law,
/// with its level (the stats samples' `audioInputLevel` and the constant-audio-input warning come
/// from the real audio).
struct ExternalAudioMediaSource: MediaSource {
    let input: any AudioFrameSource
    var frame = 0

    var payloadType: UInt8 { MuLaw.payloadType }

    mutating func nextFrame() -> MediaFrame? {
        guard var pcm = input.nextAudioFrame() else { return nil }
        if pcm.count < 160 { pcm += [Int16](repeating: 0, count: 160 - pcm.count) }
        if pcm.count > 160 { pcm = Array(pcm.prefix(160)) }
        defer { frame += 1 }
        return MediaFrame(
            payloads: [MuLaw.encode(pcm)], timestampIncrement: 160, interval: .milliseconds(20), marksLastPacket: frame == 0,
            audioLevel: AudioLevel.peak(of: pcm))
    }
}
