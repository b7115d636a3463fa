import Foundation
import Preflight
import PreflightCore
import Synchronization

/// A speaker for a preflight test's or call's received audio (``PreflightOptions/audioOutput``):
/// packets are queued as they arrive and a thread of its own plays them at 8 kHz mono (the audio
/// server converts), after 60 ms of audio have gathered, so that network jitter does not starve
/// it. What it played is kept for analysis, at most ``MicrophoneAudioSource/keptSeconds``.
public final class SpeakerAudioSink: AudioFrameSink {
    /// At most this much audio waits to be played: 2 s (older audio is dropped).
    public static let bufferedSeconds = 2

    /// The device played to.
    public let device: String
    let stopSignal = StopSignal()
    private let state = Mutex(State())

    struct State {
        var waiting: [Int16] = []
        var primed = false
        var played: [Int16] = []
        var firstReceived: ContinuousClock.Instant?
        var failure: PreflightError?
    }

    private init(device: String) { self.device = device }

    /// Opens the speaker.
    /// - Parameters:
    ///   - device: an output's ``AudioDevice/id``, or `nil` for the default output.
    ///   - audioSystem: the platform's unless given.
    /// - Throws: ``PreflightError`` with a device code (70401–70406).
    public static func open(device: String? = nil, audioSystem: (any AudioSystem)? = nil) async throws(PreflightError) -> SpeakerAudioSink {
        let system = audioSystem ?? DeviceDiagnosticsConfiguration.platformAudioSystem
        return try await DeviceThread.start(
            "preflight.speaker",
            open: { () throws(PreflightError) in
                try system.openOutput(device: device, format: AudioFormat(sampleRate: 8000, channels: 1), stop: StopSignal())
            },
            make: { SpeakerAudioSink(device: $0.deviceID) },
            run: { sink, output in sink.playLoop(to: output) })
    }

    /// Queues a packet's audio.
    public func play(_ samples: [Int16]) {
        state.withLock { state in
            if state.firstReceived == nil { state.firstReceived = .now }
            state.waiting += samples
            let limit = Self.bufferedSeconds * 8000
            if state.waiting.count > limit { state.waiting.removeFirst(state.waiting.count - limit) }
        }
    }

    private func playLoop(to output: any AudioOutputStream) {
        defer { output.close() }
        while !stopSignal.isStopped {
            let chunk = state.withLock { state -> [Int16]? in
                if !state.primed, state.waiting.count >= 480 { state.primed = true }
                guard state.primed, !state.waiting.isEmpty else { return nil }
                let count = min(state.waiting.count, 160)
                defer { state.waiting.removeFirst(count) }
                return Array(state.waiting.prefix(count))
            }
            guard let chunk else {
                Thread.sleep(forTimeInterval: 0.005)
                continue
            }
            do throws(PreflightError) {
                try output.write(chunk, stop: stopSignal)
                state.withLock { state in
                    if state.played.count < MicrophoneAudioSource.keptSeconds * 8000 { state.played += chunk }
                }
            } catch {
                state.withLock { $0.failure = error }
                return
            }
        }
    }

    /// Stops playing and releases the device.
    public func stop() { stopSignal.stop() }

    /// What was played so far, 8 kHz mono, and when the first packet's audio arrived.
    public var played: (samples: [Int16], firstReceived: ContinuousClock.Instant?) { state.withLock { ($0.played, $0.firstReceived) } }

    /// Why playing stopped, when it failed.
    public var failure: PreflightError? { state.withLock { $0.failure } }
}
