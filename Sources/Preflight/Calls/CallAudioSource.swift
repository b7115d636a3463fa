internal import PreflightCore
internal import PreflightNIO
import Synchronization

/// A call's audio: the test tone in G.711 μ-law, 20 ms a packet, or silent frames (μ-law 0xFF,
/// level 0) while the call is muted or on hold, as the reference's media engine does. The
/// switch is shared with the call's run, which flips it.
struct CallAudioSource: MediaSource {
    /// Whether silent frames are sent now.
    final class Switch: Sendable {
        let silent = Atomic(false)
    }

    var payloadType: UInt8 { MuLaw.payloadType }
    let switchboard: Switch
    var tone = AudioTestSource()
    static let silence = [UInt8](repeating: 0xFF, count: 160)

    mutating func nextFrame() -> MediaFrame? {
        guard let frame = tone.nextFrame() else { return nil }
        guard switchboard.silent.load(ordering: .relaxed) else { return frame }
        return MediaFrame(
            payloads: [Self.silence], timestampIncrement: frame.timestampIncrement, interval: frame.interval,
            marksLastPacket: false, audioLevel: 0)
    }
}
