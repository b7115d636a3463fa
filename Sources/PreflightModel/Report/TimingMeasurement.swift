/// The start, end and duration of one phase of a test (`{"startTime", "endTime", "duration"}`).
public struct TimingMeasurement: Sendable, Hashable, Codable {
    /// When the phase started: milliseconds since the Unix epoch.
    public var startTime: Int64
    /// When the phase ended: milliseconds since the Unix epoch.
    public var endTime: Int64
    /// `endTime − startTime`, milliseconds.
    public var duration: Int64

    /// Creates a measurement; `duration` is derived from the two times.
    public init(startTime: Int64, endTime: Int64) {
        self.startTime = startTime
        self.endTime = endTime
        self.duration = endTime &- startTime
    }

    /// Creates a measurement with an explicit duration (as decoded from a report).
    public init(startTime: Int64, endTime: Int64, duration: Int64) {
        self.startTime = startTime
        self.endTime = endTime
        self.duration = duration
    }
}
