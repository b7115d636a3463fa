import ArgumentParser

/// A measurement broken on purpose, so that `scripts/bench-accuracy` can show that its checks fail
/// when the SDK measures wrongly (`preflight run --measurement-fault reorder-as-lost`,
/// `preflight probe --measurement-fault whole-train`, hidden).
public enum MeasurementFault: String, ExpressibleByArgument, Sendable, CaseIterable {
    /// Count every reordered downlink packet as lost.
    case reorderAsLost = "reorder-as-lost"
    /// `probe`: average the whole train instead of the packets after the queueing knee.
    case wholeTrain = "whole-train"
    /// `probe`: count payload bytes only, without the packets' headers.
    case payloadBytes = "payload-bytes"

    /// Whether `preflight probe` (rather than `preflight run`) takes this fault.
    public var isProbeFault: Bool { self != .reorderAsLost }
}
