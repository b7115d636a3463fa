import PreflightCore

/// Runs `body`, then `cleanup` on a thread of its own (``BlockingWork``), whether `body` returned
/// or threw: the `defer` for cleanup that blocks, such as an edge process's graceful stop (about
/// 2 s of `waitUntilExit`) or a `psql` run.
///
/// A `defer` would wait on one of the cooperative pool's threads, and a two-core machine has two:
/// two tests ending at once would stop every other test's timers and media for seconds, which the
/// SDK rightly reads as a lost connection.
///
/// ```swift
/// let edge = try await EdgeProcess.start(executable: executable)
/// return try await withBlockingCleanup({ edge.stop() }) {
///     try await body(edge)
/// }
/// ```
/// - Parameters:
///   - cleanup: the blocking work; it runs to its end even when the task is cancelled.
///   - body: the test's work.
/// - Returns: what `body` returned.
public func withBlockingCleanup<Value>(
    _ cleanup: @escaping @Sendable () -> Void, _ body: () async throws -> Value
) async rethrows -> Value {
    let value: Value
    do {
        value = try await body()
    } catch {
        await runOffThePool(cleanup)
        throw error
    }
    await runOffThePool(cleanup)
    return value
}

/// `work` on a thread of its own, awaited. (Called directly in the `rethrows` function above,
/// `BlockingWork.run` does not compile with Swift 6.3: "no 'async' operations occur".)
private func runOffThePool(_ work: @escaping @Sendable () -> Void) async {
    await BlockingWork.run("preflight.test-cleanup", work)
}
