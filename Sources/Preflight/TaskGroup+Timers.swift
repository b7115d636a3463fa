extension TaskGroup where ChildTaskResult == Void {
    /// Posts `input` to `inputs` once, `duration` from now (a child task: cancelling the group
    /// cancels the timer).
    mutating func post<Input: Sendable>(_ input: Input, to inputs: AsyncStream<Input>.Continuation, after duration: Duration) {
        addTask {
            try? await Task.sleep(for: duration)
            if !Task.isCancelled { inputs.yield(input) }
        }
    }

    /// Posts `input` to `inputs` every `interval`, on absolute deadlines (a late wake-up does not
    /// shift the next), until the group is cancelled.
    mutating func post<Input: Sendable>(_ input: Input, to inputs: AsyncStream<Input>.Continuation, every interval: Duration) {
        addTask {
            let clock = ContinuousClock()
            var next = clock.now
            while true {
                next += interval
                do { try await Task.sleep(until: next, clock: clock) } catch { return }
                inputs.yield(input)
            }
        }
    }
}
