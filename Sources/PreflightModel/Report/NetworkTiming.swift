/// The report's `networkTiming`: how long each phase of the test took.
///
/// A phase that did not happen (the test failed before it) is `nil` and absent from the JSON.
public struct NetworkTiming: Sendable, Hashable, Codable {
    /// From starting to connect until signaling reached the stable state (answer received).
    public var signaling: TimingMeasurement?
    /// From ICE checking to ICE connected.
    public var iceConnection: TimingMeasurement?
    /// From peer connection "connecting" to "connected" (first media both ways).
    public var peerConnection: TimingMeasurement?
    /// The whole test, from start to completion or failure.
    public var preflightTest: TimingMeasurement?

    /// Creates the timings; all absent by default.
    public init(
        signaling: TimingMeasurement? = nil,
        iceConnection: TimingMeasurement? = nil,
        peerConnection: TimingMeasurement? = nil,
        preflightTest: TimingMeasurement? = nil
    ) {
        self.signaling = signaling
        self.iceConnection = iceConnection
        self.peerConnection = peerConnection
        self.preflightTest = preflightTest
    }
}
