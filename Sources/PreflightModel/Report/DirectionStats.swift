/// One direction of the call in a stats sample (an added field beside the reference fields):
/// uplink is client → edge, downlink edge → client.
public struct DirectionStats: Sendable, Hashable, Codable {
    /// RFC 3550 interarrival jitter of this direction, ms.
    public var jitter: Double
    /// Cumulative packets lost in this direction (RFC 3550 expected − received).
    public var packetsLost: Int
    /// Packets lost in this direction in the last second, % of those expected in it.
    public var packetsLostFraction: Double
    /// Cumulative packets expected in this direction.
    public var packetsExpected: Int

    /// Creates direction statistics; zero by default.
    public init(jitter: Double = 0, packetsLost: Int = 0, packetsLostFraction: Double = 0, packetsExpected: Int = 0) {
        self.jitter = jitter
        self.packetsLost = packetsLost
        self.packetsLostFraction = packetsLostFraction
        self.packetsExpected = packetsExpected
    }
}
