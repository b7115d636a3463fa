public import PreflightModel

/// What a ``PreflightTest`` reports while it runs; ``PreflightTest/events()`` delivers them.
public enum PreflightTestEvent: Sendable {
    /// The test connected to the edge (ICE connected, media starts).
    case connected
    /// The selected candidate pair went quiet (nothing from the edge for the media timeout): the
    /// agent is checking every pair again. The error says what was lost.
    case reconnecting(PreflightError)
    /// Media flows again, on the pair the reconnect attempt selected.
    case reconnected
    /// A stats sample, once a second while connected.
    case sample(StatsSample)
    /// The set of active quality warnings changed: the current and the previous set.
    case qualityWarnings(current: Set<QualityWarning>, previous: Set<QualityWarning>)
    /// The test completed; the full report.
    case completed(PreflightReport)
    /// The test failed (or was stopped: code 31008); the report of what was collected so far.
    case failed(PreflightError, partialReport: PreflightReport)
}
