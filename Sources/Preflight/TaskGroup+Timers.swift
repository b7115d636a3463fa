internal import PreflightCore

extension TaskGroup where ChildTaskResult == Void {
    /// Posts `input` to `inputs` once, `duration` from now on `clock` (a child task: cancelling
    /// the group cancels the timer).
    mutating func post<Input: Sendable>(
        _ input: Input, to inputs: AsyncStream<Input>.Continuation, after duration: Duration, on clock: RunClock
    ) {
        let deadline = clock.now + duration
        addTask {
            guard (try? await clock.sleep(until: deadline)) != nil, !Task.isCancelled else { return }
            inputs.yield(input)
        }
    }

    /// Posts `input` to `inputs` every `interval` on `clock`, on absolute deadlines (a late
    /// wake-up does not shift the next), until the group is cancelled. Ticks missed while the
    /// task could not run (a process paused, a virtual clock moved far) are skipped, not posted
    /// in a burst: one tick, then the next deadline after now.
    mutating func post<Input: Sendable>(
        _ input: Input, to inputs: AsyncStream<Input>.Continuation, every interval: Duration, on clock: RunClock
    ) {
        let start = clock.now
        addTask {
            var next = start + interval
            while true {
                do { try await clock.sleep(until: next) } catch { return }
                inputs.yield(input)
                let now = clock.now
                repeat { next += interval } while next <= now
            }
        }
    }
}
