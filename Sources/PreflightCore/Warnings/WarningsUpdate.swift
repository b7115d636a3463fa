/// What one ``WarningsEngine/ingest(_:muted:onHold:)`` call changed.
///
/// `current` and `previous` are the two sets the reference SDK's delegate
/// `preflightDidReceiveQualityWarnings(currentWarnings:previousWarnings:)` receives; `raised` and
/// `cleared` are the records this sample added to the report's `warnings` and `warningsCleared`.
public struct WarningsUpdate: Sendable, Hashable {
    /// The warnings active after this sample.
    public var current: Set<QualityWarning>
    /// The warnings active before this sample.
    public var previous: Set<QualityWarning>
    /// Records of the warnings this sample raised, in ``QualityWarning`` declaration order.
    public var raised: [WarningRecord]
    /// Records of the warnings this sample cleared, in ``QualityWarning`` declaration order.
    public var cleared: [ClearedWarningRecord]

    /// Creates an update.
    public init(
        current: Set<QualityWarning>,
        previous: Set<QualityWarning>,
        raised: [WarningRecord] = [],
        cleared: [ClearedWarningRecord] = []
    ) {
        self.current = current
        self.previous = previous
        self.raised = raised
        self.cleared = cleared
    }

    /// Whether the set of active warnings changed, i.e. whether the SDK would call its
    /// quality-warnings delegate for this sample.
    public var didChange: Bool { current != previous }
}
