import Logging
import PreflightModel
internal import PreflightCore
internal import PreflightNIO

/// What a run's session sees of the host's networks: the state when it started following them,
/// then each change with the host candidates its ICE drivers added for networks that appeared.
struct NetworkChange: Sendable {
    /// The host's networks now.
    let snapshot: NetworkSnapshot
    /// The first state: nothing changed, this is where the run starts from.
    let isInitial: Bool
    /// The candidates the drivers added (to tell the edge).
    let candidates: [ICECandidate]
}

/// Where a run's networks come from: the system's monitor (``NetworkMonitor``), or a test's own
/// sequence of states.
enum NetworkSource: Sendable {
    /// The system's monitor, with interfaces typed by `overrides` (`nil`: the environment's).
    case system(overrides: String?)
    /// A test's states, the first the initial one.
    case states(AsyncStream<NetworkSnapshot>)
    /// No following (``CallOptions/followsNetworks`` false).
    case none
}

/// The options of a run that follows the host's networks (a call's, a preflight test's, a
/// probe's, a connectivity check's): one place that says where its networks come from.
protocol NetworkFollowingOptions {
    var followsNetworks: Bool { get }
    var networkTypes: String? { get }
    var customNetworkSource: NetworkSource? { get set }
}

extension NetworkFollowingOptions {
    /// The system's monitor with the options' overrides, none when the run does not follow, or a
    /// test's own states.
    var networkSource: NetworkSource {
        get { customNetworkSource ?? (followsNetworks ? .system(overrides: networkTypes) : .none) }
        set { customNetworkSource = newValue }
    }
}

extension CallOptions: NetworkFollowingOptions {}
extension PreflightOptions: NetworkFollowingOptions {}
extension LastmileProbeOptions: NetworkFollowingOptions {}
extension ConnectivityCheckOptions: NetworkFollowingOptions {}

/// The thin driver between the host's networks and a run's ICE drivers: each change's networks
/// that went are removed from every driver (its pairs retire; media on them moves at once), then
/// those that appeared are added (sockets of their own, host candidates checked while media goes
/// on), and the run hears of it (``NetworkChange``). What the change means for the run is
/// ``NetworkSwitchTracker``'s to say.
enum NetworkFollower {
    /// An option's `networkTypes` text, checked before a run starts: the overrides its host
    /// candidates and its network monitor both use; `nil` (the environment's) without one.
    /// - Throws: ``PreflightError`` `.invalidArgument` (70005) when it does not parse.
    static func overrides(networkTypes text: String?) throws(PreflightError) -> NetworkTypeOverrides? {
        guard let text else { return nil }
        do throws(PreflightError) {
            return try NetworkTypeOverrides(parsing: text)
        } catch {
            throw PreflightError(code: error.code, message: "networkTypes: \(error.message)")
        }
    }

    /// Follows `source` until the task is cancelled or the source ends. A system monitor that
    /// cannot start (70901: no netlink in a sandbox, no monitor on the platform) leaves the run
    /// on the networks it started with; that is logged, and the run goes on.
    static func follow(
        _ source: NetworkSource, drivers: [ICEAgentDriver], logger: Logger, report: @escaping @Sendable (NetworkChange) -> Void
    ) async {
        switch source {
        case .none:
            return
        case .states(let states):
            await follow(states, drivers: drivers, report: report)
        case .system(let text):
            let monitor: NetworkMonitor
            do throws(PreflightError) {
                let overrides = try text.map { text throws(PreflightError) in try NetworkTypeOverrides(parsing: text) }
                monitor = try await NetworkMonitor.start(overrides: overrides, logger: logger)
            } catch {
                logger.info("networks: not followed (\(error.code.rawValue): \(error.message)); the run stays on the networks it started with")
                return
            }
            await follow(monitor.changes(), drivers: drivers, report: report)
            monitor.stop()
        }
    }

    private static func follow(
        _ states: AsyncStream<NetworkSnapshot>, drivers: [ICEAgentDriver], report: @Sendable (NetworkChange) -> Void
    ) async {
        var current: NetworkSnapshot?
        for await snapshot in states {
            guard let previous = current else {
                // The drivers bound their sockets before the monitor started: what changed in
                // between is caught up first.
                current = snapshot
                var candidates: [ICECandidate] = []
                for driver in drivers { candidates += await driver.reconcile(with: snapshot) }
                report(NetworkChange(snapshot: snapshot, isInitial: true, candidates: candidates))
                continue
            }
            current = snapshot
            let (appeared, disappeared) = snapshot.difference(from: previous)
            guard !appeared.isEmpty || !disappeared.isEmpty else { continue }
            // Removed first: a network whose addresses changed is in both lists, and its new
            // sockets must not go with the old.
            for network in disappeared {
                for driver in drivers { await driver.removeNetwork(network) }
            }
            var candidates: [ICECandidate] = []
            for network in appeared {
                for driver in drivers { candidates += await driver.addNetwork(network) }
            }
            report(NetworkChange(snapshot: snapshot, isInitial: false, candidates: candidates))
        }
    }
}
