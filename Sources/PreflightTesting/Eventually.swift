/// Waits for an event that a test cannot await directly (a counter that moves, a state another
/// task sets): checks `condition` at once, then every `interval`, and returns as soon as it
/// holds. The test goes on the moment the event happens; `timeout` only bounds the wait, so it
/// is generous: a busy two-core machine must pass.
///
/// ```swift
/// // Not "sleep 1.5 s, then expect 40 packets": wait until they are there.
/// #expect(await eventually { (call.getStats()?.remoteAudioTrackStats.first?.packetsReceived ?? 0) > 40 })
/// ```
///
/// Prefer an event stream (`events()`) where the SDK has one; use this for what it does not
/// publish.
/// - Parameters:
///   - timeout: how long to wait at most: 30 s by default.
///   - interval: how often to check: 25 ms by default.
///   - condition: the event, as a check that is cheap to repeat.
/// - Returns: whether `condition` held before the timeout (checked a last time at the deadline).
public func eventually(
    within timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(25),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline, !Task.isCancelled {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
