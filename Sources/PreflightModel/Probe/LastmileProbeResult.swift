/// The result of a last-mile probe, as Agora's `AgoraLastmileProbeResult` (`state`, `rtt`,
/// `uplinkReport`, `downlinkReport`), with Preflight's added fields beside them. A direction that
/// was not probed has no report.
public struct LastmileProbeResult: Sendable, Hashable, Codable {
    /// How the probe ended.
    public var state: LastmileProbeResultState
    /// Round-trip time to the edge, ms: the median of the probe's echoed pings sent while no probe
    /// train was queued (0 when none came back).
    public var rtt: Double
    /// The uplink (client → edge); `nil` when not probed.
    public var uplinkReport: LastmileProbeOneWayResult?
    /// The downlink (edge → client); `nil` when not probed.
    public var downlinkReport: LastmileProbeOneWayResult?

    // Added fields.

    /// The edge's name (its welcome), empty when it was never reached.
    public var edge: String
    /// True when the edge was on this host (loopback): the figures are the host's, not a network's.
    public var loopback: Bool
    /// Every `lastmileQuality` rating, in order.
    public var qualities: [LastmileQualitySample]
    /// Seconds the whole probe took, from `start` to this result.
    public var duration: Double
    /// The error that ended the probe early, if any (its code and message).
    public var error: ReportError?
    /// Each change of the host's networks during the probe (``NetworkChangeRecord``); `nil` when
    /// there was none.
    public var networkChanges: [NetworkChangeRecord]?

    /// Creates a result.
    public init(
        state: LastmileProbeResultState = .unavailable, rtt: Double = 0, uplinkReport: LastmileProbeOneWayResult? = nil,
        downlinkReport: LastmileProbeOneWayResult? = nil, edge: String = "", loopback: Bool = false,
        qualities: [LastmileQualitySample] = [], duration: Double = 0, error: ReportError? = nil
    ) {
        self.state = state
        self.rtt = rtt
        self.uplinkReport = uplinkReport
        self.downlinkReport = downlinkReport
        self.edge = edge
        self.loopback = loopback
        self.qualities = qualities
        self.duration = duration
        self.error = error
    }
}
