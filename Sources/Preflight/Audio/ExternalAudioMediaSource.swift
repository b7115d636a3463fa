internal import PreflightCore
internal import PreflightNIO

/// A media session's source made of an ``AudioFrameSource``: each 20 ms frame in the call's
/// codec, with its level (the stats samples' `audioInputLevel` and the constant-audio-input
/// warning come from the real audio).
struct ExternalAudioMediaSource: MediaSource {
    let input: any AudioFrameSource
    let codec: any AudioCodec
    var frame = 0

    var payloadType: UInt8 { codec.format.payloadType }

    mutating func nextFrame() -> MediaFrame? {
        guard var pcm = input.nextAudioFrame() else { return nil }
        if pcm.count < 160 { pcm += [Int16](repeating: 0, count: 160 - pcm.count) }
        if pcm.count > 160 { pcm = Array(pcm.prefix(160)) }
        defer { frame += 1 }
        return MediaFrame(encoding: pcm, with: codec, marksLastPacket: frame == 0)
    }
}
