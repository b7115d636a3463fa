internal import PreflightCore
internal import PreflightNIO
import Synchronization

/// A call's audio: the test tone (or the app's audio) in the call's codec, 20 ms a packet, or silent frames
/// (encoded silence, level 0) while the call is muted or on hold, as the reference's media engine does; and the
/// digits of ``Call/sendDigits(_:)`` as RFC 4733 telephone events in the same RTP stream, in
/// place of the audio frames while an event plays (RFC 4733 §2.5.1.1). The switch is shared with
/// the call, which flips it and queues the digits.
struct CallAudioSource: MediaSource {
    /// Whether silent frames are sent now, and the digit strings waiting to be played.
    final class Switch: Sendable {
        let silent = Atomic(false)
        /// On hold: the far party's audio is not played.
        let held = Atomic(false)
        let digits = Mutex<[String]>([])
    }

    var payloadType: UInt8 { codec.format.payloadType }
    let switchboard: Switch
    let codec: any AudioCodec
    var tone: AudioTestSource
    /// The app's audio in place of the tone (``CallOptions/audioInput`` with `fakeMicInput` false).
    var input: ExternalAudioMediaSource?
    /// Frames produced so far: the source's clock (20 ms a frame) and RTP timestamp (one frame's
    /// increment a frame: 160 for PCMU, 960 for Opus).
    var frameIndex = 0
    var sender: DTMFSender?
    /// Event packets due but not sent yet (one goes out per frame).
    var due: [DTMFSender.Packet] = []
    /// The digits' events count in the audio's clock (telephone-event/8000 beside PCMU,
    /// telephone-event/48000 beside Opus: RFC 4733 §2.1 has them share the stream's clock).
    let events: DTMFSenderConfiguration
    static let silentFrame = [Int16](repeating: 0, count: 160)

    init(switchboard: Switch, codec: any AudioCodec) {
        self.switchboard = switchboard
        self.codec = codec
        tone = AudioTestSource(codec: codec)
        var events = DTMFSenderConfiguration()
        events.clockRate = codec.format.clockRate
        self.events = events
    }

    mutating func nextFrame() -> MediaFrame? {
        let next: MediaFrame?
        if var input {
            next = input.nextFrame()
            self.input = input
        } else {
            next = tone.nextFrame()
        }
        guard let frame = next else { return nil }
        defer { frameIndex += 1 }
        let now = Double(frameIndex) * 0.02
        let timestamp = UInt32(truncatingIfNeeded: frameIndex) &* codec.frameTimestampIncrement
        if sender == nil, let digits = switchboard.digits.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            // Validated by `sendDigits`; a string that fails here plays nothing.
            sender = try? DTMFSender(digits: digits, startTime: now, startTimestamp: timestamp, configuration: events)
        }
        if var playing = sender {
            due += playing.poll(now: now)
            let inEvent = playing.isEventInProgress(at: now)
            sender = playing.isFinished && due.isEmpty && now >= playing.endTime ? nil : playing
            if !due.isEmpty {
                let packet = due.removeFirst()
                return MediaFrame(
                    payloads: [packet.payload], timestampIncrement: frame.timestampIncrement, interval: frame.interval,
                    marksLastPacket: packet.marker, audioLevel: 0, payloadType: packet.payloadType,
                    timestampLag: timestamp &- packet.timestamp)
            }
            if inEvent {
                // Within an event with no packet due: no audio either.
                return MediaFrame(payloads: [], timestampIncrement: frame.timestampIncrement, interval: frame.interval)
            }
        }
        guard switchboard.silent.load(ordering: .relaxed) else { return frame }
        return MediaFrame(encoding: Self.silentFrame, with: codec)
    }
}
