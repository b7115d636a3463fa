import Foundation
import PreflightModel
internal import PreflightCore

/// A run's record of the host's networks (a preflight test's, and any run that is not a call):
/// the changes as ``NetworkSwitchTracker`` decides them, kept for the report, and the end of the
/// run when no network is left. A call, which waits for a network until consent expires, keeps
/// its own tracker and posts the same records to Insights.
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

    /// The host's networks changed (the ICE drivers already follow them).
    /// - Throws: ``PreflightError`` `.noNetwork` (70902) when no network the run can use is left;
    ///   the pending change is recorded first, so the partial report has it.
    mutating func changed(_ change: NetworkChange, now: Int64) throws(PreflightError) {
        guard !change.isInitial else {
            tracker.start(from: change.snapshot)
            return
        }
        records += tracker.networksChanged(to: change.snapshot, now: now)
        guard change.snapshot.networks.contains(where: { edgeOnLoopback || $0.type != .loopback }) else {
            finish(now: now)
            throw PreflightError(code: .noNetwork, message: "no network is left: the host has no interface up with a usable address")
        }
    }

    /// The agent selected `pair` (connected, another pair nominated, or reconnected).
    mutating func selected(_ pair: ICECandidatePairStats, now: Int64) {
        let local = pair.localCandidate
        if let record = tracker.pathSelected(localAddress: local.candidateType == .host ? local.ip : local.relatedAddress, now: now) {
            records.append(record)
        }
    }

    /// The agent lost media.
    mutating func lost(now: Int64) {
        tracker.mediaLost(now: now)
    }

    /// The run ended: a change still waiting is recorded with no network after.
    mutating func finish(now: Int64) {
        if let record = tracker.finish(now: now) { records.append(record) }
    }
}
