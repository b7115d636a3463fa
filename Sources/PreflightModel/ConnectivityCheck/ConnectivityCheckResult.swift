import Foundation

/// 100ms's `HMSConnectivityCheckResult`, field for field: when the check ran, how far it got,
/// the signaling and media reports, the devices, and every error met on the way. A check that
/// failed or was stopped still has one, with whatever was measured.
public struct ConnectivityCheckResult: Sendable, Hashable, Codable {
    /// When the check started, milliseconds since the Unix epoch.
    public var testTimestamp: Int64
    /// The last state reached (``ConnectivityCheckState/completed`` for a full run).
    public var state: ConnectivityCheckState
    /// The init endpoint and the signaling connection.
    public var signallingReport: SignallingReport
    /// The publish and subscribe connections and their figures.
    public var mediaServerReport: MediaServerReport
    /// The camera, microphone and speaker.
    public var deviceTestReport: DeviceTestReport
    /// The errors met, in order (codes in docs/errors.md).
    public var errors: [ReportError]

    // Preflight's additions.

    /// The edge's name from the init endpoint (empty before it answered).
    public var edge: String
    /// The audio codec of the check (`"PCMU"`, `"opus"`).
    public var codec: String
    /// How long media flowed, seconds.
    public var mediaDuration: Double
    /// Each change of the host's networks during the check (``NetworkChangeRecord``); `nil` when
    /// there was none.
    public var networkChanges: [NetworkChangeRecord]?

    /// Creates a result.
    public init(
        testTimestamp: Int64, state: ConnectivityCheckState, signallingReport: SignallingReport, mediaServerReport: MediaServerReport,
        deviceTestReport: DeviceTestReport, errors: [ReportError], edge: String = "", codec: String = "", mediaDuration: Double = 0
    ) {
        self.testTimestamp = testTimestamp
        self.state = state
        self.signallingReport = signallingReport
        self.mediaServerReport = mediaServerReport
        self.deviceTestReport = deviceTestReport
        self.errors = errors
        self.edge = edge
        self.codec = codec
        self.mediaDuration = mediaDuration
    }

    /// The result as JSON: keys sorted, slashes unescaped, pretty-printed when asked.
    public func jsonData(prettyPrinted: Bool = true) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try encoder.encode(self)
    }
}

extension ConnectivityCheckResult {
    /// The result of a check that ended before it began: state `starting`, nothing tested, `error`.
    public init(failure error: PreflightError, testTimestamp: Int64) {
        let none = DeviceTestOutcome(tested: false, outcome: .notTested, source: "")
        self.init(
            testTimestamp: testTimestamp, state: .starting, signallingReport: SignallingReport(), mediaServerReport: MediaServerReport(),
            deviceTestReport: DeviceTestReport(camera: none, microphone: none, speaker: none), errors: [ReportError(error)])
    }
}
