import ArgumentParser

/// A measurement broken on purpose, so that `scripts/bench-accuracy` can show that its checks fail
/// when the SDK measures wrongly (`preflight run --measurement-fault reorder-as-lost`, hidden).
public enum MeasurementFault: String, ExpressibleByArgument, Sendable, CaseIterable {
    /// Count every reordered downlink packet as lost.
    case reorderAsLost = "reorder-as-lost"
}
