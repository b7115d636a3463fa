/// 100ms's `deviceTestReport`: the camera, microphone and speaker in the check.
public struct DeviceTestReport: Sendable, Hashable, Codable {
    /// The video source.
    public var camera: DeviceTestOutcome
    /// The audio source.
    public var microphone: DeviceTestOutcome
    /// The audio sink (what played the subscribe connection's audio).
    public var speaker: DeviceTestOutcome

    /// Creates a report.
    public init(camera: DeviceTestOutcome, microphone: DeviceTestOutcome, speaker: DeviceTestOutcome) {
        self.camera = camera
        self.microphone = microphone
        self.speaker = speaker
    }
}
