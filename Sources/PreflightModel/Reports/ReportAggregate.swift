/// What one edge's reports of one UTC day add up to.
public struct ReportAggregate: Sendable, Hashable, Codable {
    /// The edge that stored them.
    public var edge: String
    /// The UTC day, `YYYY-MM-DD`.
    public var day: String
    /// How many reports.
    public var count: Int
    /// The median of their average MOS (of those that carry one); `nil` when none does.
    public var mosMedian: Double?
    /// The 10th percentile of the same (nearest rank).
    public var mosPercentile10: Double?
    /// The share (0–1) of those that say whether TURN was needed which needed it; `nil` when none says.
    public var turnShare: Double?
    /// Reports that ended with an error, by code (as text: JSON object keys).
    public var failuresByCode: [String: Int]

    /// Creates an aggregate.
    public init(
        edge: String, day: String, count: Int, mosMedian: Double?, mosPercentile10: Double?, turnShare: Double?,
        failuresByCode: [String: Int]
    ) {
        self.edge = edge
        self.day = day
        self.count = count
        self.mosMedian = mosMedian
        self.mosPercentile10 = mosPercentile10
        self.turnShare = turnShare
        self.failuresByCode = failuresByCode
    }
}
