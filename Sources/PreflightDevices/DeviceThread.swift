import Foundation
import PreflightCore

/// Runs blocking device work on a thread of its own, so that Swift concurrency's few threads
/// never wait on a device clock. Cancelling the awaiting task gives the work's ``StopSignal``.
enum DeviceThread {
    static func run<Value: Sendable>(
        _ name: String, stop: StopSignal, _ body: @escaping @Sendable () throws(PreflightError) -> Value
    ) async throws(PreflightError) -> Value {
        try await BlockingWork.run(name, onCancel: { stop.stop() }, body)
    }

    /// Starts a thread of its own for a device that stays open: `open` opens it there, `make`
    /// makes the owner the caller gets back (or the open's error), and `run` then works the
    /// device on that thread until it returns. The stream never leaves the thread.
    static func start<Owner: Sendable, Stream>(
        _ name: String, open: @escaping @Sendable () throws(PreflightError) -> Stream, make: @escaping @Sendable (Stream) -> Owner,
        run: @escaping @Sendable (Owner, Stream) -> Void
    ) async throws(PreflightError) -> Owner {
        let opened = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Owner, PreflightError>, Never>) in
            let thread = Thread {
                let stream: Stream
                do throws(PreflightError) {
                    stream = try open()
                } catch {
                    continuation.resume(returning: .failure(error))
                    return
                }
                let owner = make(stream)
                continuation.resume(returning: .success(owner))
                run(owner, stream)
            }
            thread.name = name
            thread.start()
        }
        return try opened.get()
    }
}
