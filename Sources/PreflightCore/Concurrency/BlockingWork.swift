import Foundation

/// Runs work that blocks (a child process read to its end, a device clock, a wait for an exit)
/// on a thread of its own, so that Swift concurrency's few threads never wait on it: on a
/// two-core machine the cooperative pool has two threads, and one held for the 30 seconds of a
/// browser run leaves every other task, timer and echo of the process to the other.
public enum BlockingWork {
    /// Runs `body` on a new thread named `name` and returns what it returns or throws.
    /// - Parameters:
    ///   - name: the thread's name (seen in `top -H`, perf and crash reports).
    ///   - onCancel: called when the awaiting task is cancelled, to make `body` return early
    ///     (the work itself is not interrupted otherwise).
    ///   - body: the blocking work.
    public static func run<Value: Sendable, Failure: Error>(
        _ name: String, onCancel: @escaping @Sendable () -> Void = {}, _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
                let thread = Thread {
                    continuation.resume(returning: Result { () throws(Failure) -> Value in try body() })
                }
                thread.name = name
                thread.start()
            }
        } onCancel: {
            onCancel()
        }
        return try result.get()
    }
}
