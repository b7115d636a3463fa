/// The report of a preflight test call.
///
/// Field names and JSON shapes are exactly those of the example report in
/// "Twilio Voice SDK: PreflightTest" (docs/references.md), so dashboards built for it read ours unchanged: `isTurnRequired` is a
/// JSON *string* (`"true"`/`"false"`, absent when no pair was selected) and the stats samples'
/// `timestamp` is a string. Fields Preflight adds go beside these in later versions, never in
/// place of them. All times are milliseconds since the Unix epoch; all durations milliseconds.
///
/// A default-constructed report is the *empty* report that `PreflightTest.report` returns before
/// the test has completed.
public struct PreflightReport: Sendable, Hashable, Codable {
    /// The identifier of the test call, assigned by the edge (`"CA…"`); empty before signaling.
    public var callSid: String
    /// The name of the edge location the test call connected to.
    public var edge: String
    /// The edge the caller asked for (`"roaming"` when none was set).
    public var selectedEdge: String
    /// Every ICE candidate gathered or received while connecting media.
    public var iceCandidates: [ICECandidateStats]
    /// The candidate pair media flowed over, if one was selected.
    public var selectedIceCandidatePair: ICECandidatePairStats?
    /// Summaries of the samples' jitter (ms), MOS and RTT (ms).
    public var networkStats: NetworkStats
    /// One sample per second of the test call.
    public var statsSamples: [StatsSample]
    /// The quality grade of the test from the average MOS; `nil` when no MOS was measured.
    public var callQuality: CallQuality?
    /// Every warning raised during the test, including those cleared later.
    public var warnings: [WarningRecord]
    /// Every warning cleared during the test.
    public var warningsCleared: [ClearedWarningRecord]
    /// Timing of the phases of the test.
    public var networkTiming: NetworkTiming
    /// Whether media needed a TURN relay: `true` when either selected candidate is a relay,
    /// `false` when neither is, `nil` (absent in JSON) when no pair was selected.
    public var isTurnRequired: Bool?

    // MARK: Added fields (not in the reference report; omitted from JSON when nil)

    /// The edge application the test ran against (`"echo"`, `"record-playback"`).
    public var application: String?
    /// Client → edge over the whole test: jitter summary and total loss.
    public var uplink: DirectionSummary?
    /// Edge → client over the whole test: jitter summary and total loss.
    public var downlink: DirectionSummary?
    /// Average, minimum and maximum of the samples' G.107 E-model MOS.
    public var eModelMOS: MetricStats?
    /// Why the test ended: `"completed"`, or the failure's code and message for a partial report.
    public var error: ReportError?
    /// The connection's state changes in order (ICE gathering, ICE connection, peer connection,
    /// signaling, candidates), with their times: the Insights events of "Twilio Voice SDK: TVOCall".
    public var timeline: [ConnectionStateEvent] = []
    /// Each change of the host's networks during the test: when, the network media used before
    /// and after, why, and the gap (``NetworkChangeRecord``); omitted while empty.
    public var networkChanges: [NetworkChangeRecord] = []
    /// Every candidate pair the ICE agent formed, with its checks' outcome.
    public var iceCandidatePairs: [ICECandidatePairRecord] = []
    /// STUN and TURN servers that gave no candidate, with why (e.g. TURN refusing the credentials).
    public var iceCandidateErrors: [ICECandidateErrorRecord] = []
    /// How roaming chose the edge (``EdgeOption/roaming(_:)``): each candidate's RTT and the one
    /// used; `nil` for a test run against one edge.
    public var edgeSelection: EdgeSelection?
    /// An adaptive test's end: when and why its verdict settled (``TestDuration/adaptive(maximum:)``);
    /// `nil` for a fixed duration. Added beside Twilio's fields.
    public var verdictSettlement: VerdictSettlement?
    /// Where on the path a problem is (``PathDiagnosis``), when the test was asked to diagnose
    /// its path (`PreflightOptions.diagnosesPath`); `nil` otherwise. Added beside Twilio's fields.
    public var pathDiagnosis: PathDiagnosis?

    /// Creates a report; every field defaults to empty.
    public init(
        callSid: String = "",
        edge: String = "",
        selectedEdge: String = "",
        iceCandidates: [ICECandidateStats] = [],
        selectedIceCandidatePair: ICECandidatePairStats? = nil,
        networkStats: NetworkStats = NetworkStats(),
        statsSamples: [StatsSample] = [],
        callQuality: CallQuality? = nil,
        warnings: [WarningRecord] = [],
        warningsCleared: [ClearedWarningRecord] = [],
        networkTiming: NetworkTiming = NetworkTiming(),
        isTurnRequired: Bool? = nil
    ) {
        self.callSid = callSid
        self.edge = edge
        self.selectedEdge = selectedEdge
        self.iceCandidates = iceCandidates
        self.selectedIceCandidatePair = selectedIceCandidatePair
        self.networkStats = networkStats
        self.statsSamples = statsSamples
        self.callQuality = callQuality
        self.warnings = warnings
        self.warningsCleared = warningsCleared
        self.networkTiming = networkTiming
        self.isTurnRequired = isTurnRequired
    }
}
