import Foundation
import Logging
import PreflightCore
import Synchronization

/// Watches the host's networks and says when they change: an interface coming up or going down,
/// an address added or removed. On Linux through netlink (``NetlinkMonitorSession`` over a
/// `NETLINK_ROUTE` socket; no privileges needed); on Apple platforms through the Network
/// framework's `NWPathMonitor`.
///
/// Each network gets its ``NetworkType`` from ``NetworkTypeClassifier``, with the overrides given
/// to ``start(overrides:logger:)`` (by default those of the environment variable
/// `PREFLIGHT_NETWORK_TYPES`, ``NetworkTypeOverrides/environmentVariable``).
///
/// ``snapshot`` is the state now; ``changes()`` delivers it and then every change, in order.
/// ``stop()`` ends the streams and releases the system's monitor.
public final class NetworkMonitor: Sendable {
    /// How long ``start(overrides:logger:)`` waits for the first state.
    public static let startTimeout = Duration.seconds(5)

    struct State: Sendable {
        var snapshot = NetworkSnapshot(networks: [])
        var isReady = false
        var subscribers: [Int: AsyncStream<NetworkSnapshot>.Continuation] = [:]
        var nextSubscriber = 0
        var stopped = false
        var release: (@Sendable () -> Void)?
    }

    let state = Mutex(State())

    init() {}

    /// The overrides of the environment variable `PREFLIGHT_NETWORK_TYPES`; none when it is unset.
    /// - Throws: ``PreflightError`` `.invalidArgument` when it is set and does not parse.
    public static func environmentOverrides() throws(PreflightError) -> NetworkTypeOverrides {
        guard let text = ProcessInfo.processInfo.environment[NetworkTypeOverrides.environmentVariable] else {
            return NetworkTypeOverrides()
        }
        do throws(PreflightError) {
            return try NetworkTypeOverrides(parsing: text)
        } catch {
            throw PreflightError(code: error.code, message: "\(NetworkTypeOverrides.environmentVariable): \(error.message)")
        }
    }

    /// Starts watching and returns once the first state is known.
    /// - Parameter overrides: interfaces whose type is given; `nil` reads the environment
    ///   (``environmentOverrides()``).
    /// - Throws: ``PreflightError`` `.networkMonitorUnavailable` when the system's monitor cannot
    ///   start or gives no state within ``startTimeout``, or the platform has none;
    ///   `.invalidArgument` for overrides from the environment that do not parse.
    public static func start(overrides: NetworkTypeOverrides? = nil, logger: Logger) async throws(PreflightError) -> NetworkMonitor {
        var classifier = NetworkTypeClassifier()
        if let overrides {
            classifier.overrides = overrides
        } else {
            classifier.overrides = try environmentOverrides()
        }
        let monitor = NetworkMonitor()
        let first = monitor.changes()
        #if os(Linux)
            let release = try NetlinkBackend.start(classifier: classifier, logger: logger) { monitor.publish($0) }
        #elseif canImport(Network)
            let release = PathBackend.start(classifier: classifier) { monitor.publish($0) }
        #else
            throw PreflightError(code: .networkMonitorUnavailable, message: "no network monitor on this platform")
        #endif
        monitor.state.withLock { $0.release = release }
        let ready = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in first { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: startTimeout)
                return false
            }
            let ready = await group.next() ?? false
            group.cancelAll()
            return ready
        }
        guard ready else {
            monitor.stop()
            throw PreflightError(
                code: .networkMonitorUnavailable, message: "the system gave no state of the host's networks within \(startTimeout)")
        }
        return monitor
    }

    /// The host's networks now.
    public var snapshot: NetworkSnapshot { state.withLock { $0.snapshot } }

    /// The state now, then every change, in order, until ``stop()``.
    public func changes() -> AsyncStream<NetworkSnapshot> {
        let (stream, continuation) = AsyncStream<NetworkSnapshot>.makeStream(bufferingPolicy: .unbounded)
        // A subscriber that stops listening is dropped at the next change, when its stream says it
        // terminated; never from its `onTermination`, which runs under the cancelled task's
        // runtime lock while a change yields under this lock (a deadlock of the two).
        let added = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            if state.isReady { continuation.yield(state.snapshot) }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            return true
        }
        if !added { continuation.finish() }
        return stream
    }

    /// A new state from the system's monitor.
    func publish(_ snapshot: NetworkSnapshot) {
        state.withLock { state in
            guard !state.stopped else { return }
            state.snapshot = snapshot
            state.isReady = true
            for (id, continuation) in state.subscribers {
                if case .terminated = continuation.yield(snapshot) { state.subscribers[id] = nil }
            }
        }
    }

    /// Stops watching: the streams end, the system's monitor is released.
    public func stop() {
        let (release, subscribers) = state.withLock { state in
            state.stopped = true
            defer {
                state.subscribers.removeAll()
                state.release = nil
            }
            return (state.release, Array(state.subscribers.values))
        }
        for continuation in subscribers { continuation.finish() }
        release?()
    }

    deinit {
        stop()
    }
}
