/// One `lastmileQuality` rating of a probe (an added report field): when, and what.
public struct LastmileQualitySample: Sendable, Hashable, Codable {
    /// Seconds since the probe started.
    public var time: Double
    /// The rating.
    public var quality: NetworkQuality

    /// Creates a sample.
    public init(time: Double, quality: NetworkQuality) {
        self.time = time
        self.quality = quality
    }
}
