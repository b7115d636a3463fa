import Synchronization

/// Audio a device delivered on its own (real-time) thread, waiting for the reader's thread:
/// interleaved float frames at the device's rate and channel count. The device thread only
/// copies into it under a lock; the reader converts. Bounded: past ``capacity`` the oldest frames
/// are dropped and counted, as a real-time stream must (a reader that fell behind hears the
/// present, not an ever-growing past).
final class CapturedAudio: Sendable {
    struct State {
        var samples: [Float] = []
        var channels = 1
        var sampleRate = 48_000.0
        var dropped = 0
        var lastDelivery: ContinuousClock.Instant?
        var failure: PreflightError?
    }

    /// The most frames held; 2 s at 48 kHz by default.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 96_000) {
        self.capacity = max(1, capacity)
    }

    /// Called on the device's thread with one buffer: `channels` planes of `frames` floats each
    /// (AVAudioPCMBuffer's `floatChannelData`), or interleaved when `planes` has one pointer for
    /// several channels.
    func append(planes: [UnsafePointer<Float>], frames: Int, channels: Int, sampleRate: Double) {
        guard frames > 0, channels > 0, !planes.isEmpty else { return }
        state.withLock { state in
            if state.channels != channels || state.sampleRate != sampleRate {
                // The device changed format (another device, another rate): start afresh.
                state.samples.removeAll(keepingCapacity: true)
                state.channels = channels
                state.sampleRate = sampleRate
            }
            state.samples.reserveCapacity(state.samples.count + frames * channels)
            for frame in 0..<frames {
                for channel in 0..<channels {
                    state.samples.append(planes.count == 1 ? planes[0][frame * channels + channel] : planes[min(channel, planes.count - 1)][frame])
                }
            }
            let excess = state.samples.count / channels - capacity
            if excess > 0 {
                state.samples.removeFirst(excess * channels)
                state.dropped += excess
            }
            state.lastDelivery = .now
        }
    }

    /// The device failed (its engine stopped, the device went away): the reader throws `error`.
    func fail(_ error: PreflightError) {
        state.withLock { $0.failure = $0.failure ?? error }
    }

    /// Everything held now, with its format; the holder is emptied.
    func take() -> (samples: [Float], channels: Int, sampleRate: Double, lastDelivery: ContinuousClock.Instant?, failure: PreflightError?) {
        state.withLock { state in
            defer { state.samples.removeAll(keepingCapacity: true) }
            return (state.samples, state.channels, state.sampleRate, state.lastDelivery, state.failure)
        }
    }

    /// Frames dropped because the reader fell more than ``capacity`` behind.
    var droppedFrames: Int { state.withLock { $0.dropped } }
}
