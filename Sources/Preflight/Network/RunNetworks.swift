import Foundation
import PreflightModel
internal import PreflightCore

/// A run's record of the host's networks: the changes as ``NetworkSwitchTracker`` decides them,
/// kept for the report (a call posts each to Insights as a method returns it), and the end of a
/// test, probe or check when no network is left (``changed(_:now:)``; a call, which waits for a
/// network until consent expires, only records: ``record(_:now:)``).
struct RunNetworks: Sendable {
    private var tracker = NetworkSwitchTracker(snapshot: NetworkSnapshot(networks: []))
    /// The changes so far, in order.
    private(set) var records: [NetworkChangeRecord] = []
    /// Whether the edge is on loopback (loopback then counts as a network).
    let edgeOnLoopback: Bool

    /// Now, in milliseconds since the Unix epoch (the records' time).
    static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    init(edgeOnLoopback: Bool) {
        self.edgeOnLoopback = edgeOnLoopback
    }

    /// The networks as last seen.
    var snapshot: NetworkSnapshot { tracker.snapshot }

    /// The host's networks changed (the ICE drivers already follow them).
    /// - Returns: the changes this one completed, in order.
    @discardableResult
    mutating func record(_ change: NetworkChange, now: Int64) -> [NetworkChangeRecord] {
        guard !change.isInitial else {
            tracker.start(from: change.snapshot)
            return []
        }
        let new = tracker.networksChanged(to: change.snapshot, now: now)
        records += new
        return new
    }

    /// The host's networks changed, in a run that ends when none is left: ``record(_:now:)``.
    /// - Throws: ``PreflightError`` `.noNetwork` (70902) when no network the run can use is left;
    ///   the pending change is recorded first, so the partial report has it.
    mutating func changed(_ change: NetworkChange, now: Int64) throws(PreflightError) {
        record(change, now: now)
        guard !change.isInitial, !change.snapshot.networks.contains(where: { edgeOnLoopback || $0.type != .loopback }) else { return }
        finish(now: now)
        throw PreflightError(code: .noNetwork, message: "no network is left: the host has no interface up with a usable address")
    }

    /// The agent selected `pair` (connected, another pair nominated, or reconnected).
    /// - Returns: the change this selection completed, if one was waiting for it.
    @discardableResult
    mutating func selected(_ pair: ICECandidatePairStats, now: Int64) -> NetworkChangeRecord? {
        let local = pair.localCandidate
        guard let record = tracker.pathSelected(localAddress: local.candidateType == .host ? local.ip : local.relatedAddress, now: now) else {
            return nil
        }
        records.append(record)
        return record
    }

    /// The agent lost media.
    mutating func lost(now: Int64) {
        tracker.mediaLost(now: now)
    }

    /// The run ended: a change still waiting is recorded with no network after.
    /// - Returns: that change.
    @discardableResult
    mutating func finish(now: Int64) -> NetworkChangeRecord? {
        guard let record = tracker.finish(now: now) else { return nil }
        records.append(record)
        return record
    }
}
