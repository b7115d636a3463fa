/// What an echo test heard: the microphone's audio came back from the edge after the interval,
/// and how faithfully, beside the test call's network report.
public struct EchoTestResult: Sendable, Codable {
    /// The interval asked for, seconds: how long the edge recorded before playing back.
    public var interval: Int
    /// The input recorded from.
    public var inputDevice: String
    /// The output played to.
    public var outputDevice: String
    /// Seconds of audio the microphone delivered.
    public var recordedSeconds: Double
    /// Seconds of audio that came back and were played.
    public var playedBackSeconds: Double
    /// From recording a sound to hearing it back, seconds (the interval, plus the network and the
    /// buffers): `nil` when nothing came back or it matched nothing sent.
    public var delay: Double?
    /// The normalised cross-correlation of what came back with what was sent, at the best
    /// alignment (−1…1; a clean copy is near 1); `nil` when nothing came back.
    public var correlation: Double?
    /// Whether the recording came back: correlation 0.5 or more over at least 0.5 s.
    public var heardBack: Bool
    /// Whether the microphone heard anything: its level above −60 dBFS.
    public var microphoneHeardSound: Bool
    /// 20 ms frames sent as silence because the microphone was behind (a device that delivers
    /// late or in bursts); what came back is compared with what was sent, silence included.
    public var microphoneUnderruns: Int
    /// Why the microphone or the speaker stopped during the test, when one failed (it went away,
    /// or delivered or took nothing for 2 s).
    public var deviceError: ReportError?
    /// Whether ``EchoTest/stopEchoTest()`` ended the test early.
    public var stoppedEarly: Bool
    /// The test call's report (RTT, jitter, loss, MOS, ICE), or its partial report.
    public var report: PreflightReport

    /// Creates a result.
    public init(
        interval: Int, inputDevice: String, outputDevice: String, recordedSeconds: Double, playedBackSeconds: Double,
        delay: Double?, correlation: Double?, heardBack: Bool, microphoneHeardSound: Bool, microphoneUnderruns: Int,
        deviceError: ReportError? = nil, stoppedEarly: Bool, report: PreflightReport
    ) {
        self.deviceError = deviceError
        self.interval = interval
        self.inputDevice = inputDevice
        self.outputDevice = outputDevice
        self.recordedSeconds = recordedSeconds
        self.playedBackSeconds = playedBackSeconds
        self.delay = delay
        self.correlation = correlation
        self.heardBack = heardBack
        self.microphoneHeardSound = microphoneHeardSound
        self.microphoneUnderruns = microphoneUnderruns
        self.stoppedEarly = stoppedEarly
        self.report = report
    }
}
