import Foundation
import Synchronization

/// What a player was given and what it finished, shared between the writer's thread and the
/// player's completion callbacks: the writer waits on it to keep at most a bounded amount queued,
/// and to drain. Every wait has a deadline and sees a ``StopSignal`` within 5 ms.
final class PlaybackLedger: Sendable {
    private struct State {
        var queued = 0
        var finished = 0
        var lastProgress = ContinuousClock.now
        var failure: PreflightError?
    }

    private let state = Mutex(State())

    /// Frames handed to the player and not finished yet.
    var queuedFrames: Int { state.withLock { $0.queued - $0.finished } }

    /// `frames` were handed to the player.
    func scheduled(_ frames: Int) {
        state.withLock { state in
            // After an idle spell the stall clock starts now, not at the last completion.
            if state.queued == state.finished { state.lastProgress = .now }
            state.queued += max(0, frames)
        }
    }

    /// The player finished a buffer of `frames` (its completion callback).
    func finished(_ frames: Int) {
        state.withLock { state in
            state.finished += max(0, frames)
            state.lastProgress = .now
        }
    }

    /// The player failed: every wait throws `error`.
    func fail(_ error: PreflightError) {
        state.withLock { $0.failure = $0.failure ?? error }
    }

    /// Blocks until at most `frames` are queued, `stop` is given, or the player has finished
    /// nothing for `stall` while frames were queued (then `deviceFailed`, 70406).
    func wait(untilAtMost frames: Int, stop: StopSignal, stall: Duration, what: String) throws(PreflightError) {
        while !stop.isStopped {
            let (queued, progress, failure) = state.withLock { ($0.queued - $0.finished, $0.lastProgress, $0.failure) }
            if let failure { throw failure }
            if queued <= frames { return }
            if ContinuousClock.now - progress > stall {
                throw PreflightError(code: .deviceFailed, message: "\(what): the device played nothing for \(stall)")
            }
            // The writer's thread may block: device I/O runs on threads of its own (DeviceThread).
            Thread.sleep(forTimeInterval: 0.005)
        }
    }
}
