import Foundation

/// Runs blocking device work on a thread of its own, so that Swift concurrency's few threads
/// never wait on a device clock. Cancelling the awaiting task gives the work's ``StopSignal``.
enum DeviceThread {
    static func run<Value: Sendable>(
        _ name: String, stop: StopSignal, _ body: @escaping @Sendable () throws(PreflightError) -> Value
    ) async throws(PreflightError) -> Value {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, PreflightError>, Never>) in
                let thread = Thread {
                    continuation.resume(returning: Result { () throws(PreflightError) -> Value in try body() })
                }
                thread.name = name
                thread.start()
            }
        } onCancel: {
            stop.stop()
        }
        return try result.get()
    }
}
