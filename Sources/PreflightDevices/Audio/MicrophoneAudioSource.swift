import Foundation
import Preflight
import PreflightCore
import Synchronization

/// A microphone as a preflight test's or call's audio (``PreflightOptions/audioInput`` with
/// `fakeMicInput` false): a thread of its own records 8 kHz mono from the device (the audio
/// server converts) and the media session takes 20 ms at a time. Silence goes out while the
/// microphone is behind (counted in ``underruns``); what it heard is kept for analysis (the echo
/// test's), at most ``keptSeconds``.
public final class MicrophoneAudioSource: AudioFrameSource {
    /// At most this much audio waits for the media session: 1 s (older audio is dropped).
    public static let bufferedSeconds = 1
    /// At most this much of what the microphone heard is kept: 120 s.
    public static let keptSeconds = 120

    /// The device recorded from (the default's real id when none was asked).
    public let device: String
    let stopSignal = StopSignal()
    private let state = Mutex(State())

    struct State {
        var waiting: [Int16] = []
        var heard: [Int16] = []
        var started: ContinuousClock.Instant?
        var sent: [Int16] = []
        var firstSent: ContinuousClock.Instant?
        var primed = false
        var underruns = 0
        var failure: PreflightError?
    }

    private init(device: String) { self.device = device }

    /// Opens the microphone and starts recording.
    /// - Parameters:
    ///   - device: an input's ``AudioDevice/id``, or `nil` for the default input.
    ///   - audioSystem: the platform's (``DeviceDiagnosticsConfiguration``'s default) unless given.
    /// - Throws: ``PreflightError`` with a device code (70401–70406).
    public static func open(device: String? = nil, audioSystem: (any AudioSystem)? = nil) async throws(PreflightError) -> MicrophoneAudioSource {
        let system = audioSystem ?? DeviceDiagnosticsConfiguration.platformAudioSystem
        return try await DeviceThread.start(
            "preflight.microphone",
            open: { () throws(PreflightError) in
                try system.openInput(device: device, format: AudioFormat(sampleRate: 8000, channels: 1), stop: StopSignal())
            },
            make: { MicrophoneAudioSource(device: $0.deviceID) },
            run: { source, input in source.record(from: input) })
    }

    /// The recording loop, on the microphone's thread, until ``stop()`` or a failure.
    private func record(from input: any AudioInputStream) {
        defer { input.close() }
        while !stopSignal.isStopped {
            do throws(PreflightError) {
                let samples = try input.read(frameCount: 160, stop: stopSignal)
                state.withLock { state in
                    if state.started == nil { state.started = .now }
                    state.waiting += samples
                    let limit = Self.bufferedSeconds * 8000
                    if state.waiting.count > limit { state.waiting.removeFirst(state.waiting.count - limit) }
                    if state.heard.count < Self.keptSeconds * 8000 { state.heard += samples.prefix(Self.keptSeconds * 8000 - state.heard.count) }
                }
            } catch {
                state.withLock { $0.failure = error }
                return
            }
        }
    }

    /// The next 20 ms the microphone recorded, or silence while it is behind (the first frame
    /// waits until 60 ms have gathered, so that a device that delivers in bursts is not cut up).
    public func nextAudioFrame() -> [Int16]? {
        state.withLock { state in
            if !state.primed, state.waiting.count >= 480 { state.primed = true }
            let frame: [Int16]
            if state.primed, state.waiting.count >= 160 {
                frame = Array(state.waiting.prefix(160))
                state.waiting.removeFirst(160)
            } else {
                if state.primed { state.underruns += 1 }
                frame = [Int16](repeating: 0, count: 160)
            }
            if state.firstSent == nil { state.firstSent = .now }
            if state.sent.count < Self.keptSeconds * 8000 { state.sent += frame }
            return frame
        }
    }

    /// Waits until the microphone has delivered its first audio (at most `timeout`): a device
    /// can take a while to start (a PulseAudio monitor, over a second), and what is sent before
    /// is silence. `false` when nothing came in time.
    public func waitForAudio(timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !Task.isCancelled {
            if state.withLock({ $0.waiting.count >= 480 || $0.failure != nil }) { return state.withLock { $0.failure == nil } }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Stops recording and releases the device.
    public func stop() { stopSignal.stop() }

    /// What the microphone heard so far, 8 kHz mono, and when its first sample was recorded.
    public var heard: (samples: [Int16], start: ContinuousClock.Instant?) { state.withLock { ($0.heard, $0.started) } }

    /// What was handed to the media session so far (the microphone's audio with silence where it
    /// was behind), 8 kHz mono, and when the first frame was: what the far end can send back.
    public var sent: (samples: [Int16], start: ContinuousClock.Instant?) { state.withLock { ($0.sent, $0.firstSent) } }

    /// Frames sent as silence because the microphone had not delivered them yet (after the first
    /// 60 ms had gathered).
    public var underruns: Int { state.withLock { $0.underruns } }

    /// Why recording stopped, when it failed (the device went away).
    public var failure: PreflightError? { state.withLock { $0.failure } }
}
