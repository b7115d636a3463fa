/// Turns the packets of a test call into one-second ``StatsSample``s: the measurement engine of
/// the SDK's preflight test, pure (every time is passed in) so that it is tested without sockets.
///
/// Definitions (docs/measurement.md):
/// - **rtt**: mean of the round trips measured in the second (echo: receive − send − edge hold;
///   record-playback: RTCP LSR/DLSR); the last known value when none arrived in it; 0 before any.
/// - **jitter**: RFC 3550 interarrival jitter of the worse direction (the call is as good as its
///   worse side); each direction's value is in ``StatsSample/uplink`` and ``StatsSample/downlink``.
/// - **packetsLost**: cumulative loss of both directions (uplink lost + downlink lost), so that no
///   direction's loss is hidden; **packetsLostFraction**: the share of the second's packets lost on
///   the round trip, 100·(1 − (1 − up)(1 − down)) from each direction's interval loss.
/// - **mos**: ``MeanOpinionScore`` of the sample's own rtt, jitter and packetsLostFraction.
/// - **audio levels**: peak of the last frame sent (input) and received (output), 0…32767; the
///   output level is 0 for a second in which nothing was received.
public struct CallMeter: Sendable {
    /// Cumulative RTP packets sent.
    public private(set) var packetsSent = 0
    /// Cumulative RTP bytes sent (UDP payload).
    public private(set) var bytesSent = 0
    /// Cumulative RTP packets received (duplicates included, as bytes on the wire).
    public private(set) var packetsReceived = 0
    /// Cumulative RTP bytes received (UDP payload).
    public private(set) var bytesReceived = 0
    /// The downlink stream's receive statistics.
    public private(set) var downlink = ReceiveStatistics(minSequential: 1)
    /// The latest cumulative uplink report from the edge (see ``recordUplink(_:)``).
    public private(set) var uplink: UplinkReport?
    /// The edge's latest view of the uplink, for the test's totals (see ``recordUplink(_:)``).
    public private(set) var uplinkTotals: UplinkReport?
    /// Every RTT measured, ms.
    public private(set) var roundTrips = RunningSummary()
    /// Every packet's round trip, echoed or lost, from the echoes' original sequence numbers
    /// (an adaptive test's loss evidence).
    public private(set) var roundTripLoss = RoundTripLoss()
    /// A deliberately wrong meter for the accuracy benchmark's self-check: a reordered downlink
    /// packet is not counted, so it shows as lost. Never set outside that check.
    @_spi(Testing) public var countsReorderedAsLost = false

    /// The SSRC of the stream received, once one arrived.
    public private(set) var downlinkSSRC: UInt32?
    private var uplinkInterval = IntervalLoss()
    private var downlinkInterval = IntervalLoss()
    private var intervalRTT = RunningSummary()
    private var lastRTT: Double?
    private var inputLevel = 0
    private var outputLevel = 0
    private var receivedInInterval = false

    /// Creates a meter with nothing counted.
    public init() {}

    /// Counts one RTP packet sent.
    /// - Parameters:
    ///   - bytes: its size (UDP payload).
    ///   - audioLevel: the peak level of the frame it carries, 0…32767.
    public mutating func recordSent(bytes: Int, audioLevel: Int) {
        packetsSent += 1
        bytesSent += bytes
        inputLevel = audioLevel
    }

    /// Counts one RTP packet received from the edge.
    /// - Parameters:
    ///   - ssrc: its SSRC; a new SSRC restarts the downlink statistics.
    ///   - sequenceNumber: its sequence number.
    ///   - senderTime: the sender's timestamp in units of `clockRate` (the edge's send time in µs
    ///     when present, else the RTP timestamp).
    ///   - clockRate: units of `senderTime` per second.
    ///   - arrival: arrival time, seconds on the receiver's monotonic clock.
    ///   - bytes: its size (UDP payload).
    ///   - audioLevel: the peak level of its decoded payload, 0…32767; `nil` for a packet whose
    ///     audio was not decoded (late, repeated, not audio), which leaves the level as it was.
    /// - Returns: what the receive statistics did with it (duplicates and reordering are not loss).
    @discardableResult
    public mutating func recordReceived(
        ssrc: UInt32, sequenceNumber: UInt16, senderTime: UInt32, clockRate: Int, arrival: Double,
        bytes: Int, audioLevel: Int?
    ) -> ReceiveStatistics.Outcome {
        packetsReceived += 1
        bytesReceived += bytes
        if let audioLevel { outputLevel = audioLevel }
        receivedInInterval = true
        if downlinkSSRC != ssrc {
            downlinkSSRC = ssrc
            downlink = ReceiveStatistics(minSequential: 1)
            downlinkInterval = IntervalLoss()
        }
        if countsReorderedAsLost, downlink.isValid {
            let behind = UInt16(truncatingIfNeeded: downlink.highestExtendedSequence) &- sequenceNumber
            if behind > 0, behind <= ReceiveStatistics.maxMisorder { return .reordered }
        }
        return downlink.record(sequenceNumber: sequenceNumber, rtpTimestamp: senderTime, arrival: arrival, clockRate: clockRate)
    }

    /// Records one round-trip time, ms (negative and non-finite values are ignored).
    public mutating func recordRTT(_ milliseconds: Double) {
        guard milliseconds.isFinite, milliseconds >= 0 else { return }
        intervalRTT.add(milliseconds)
        roundTrips.add(milliseconds)
    }

    /// Records that the packet sent with `sequenceNumber` came back as an echo.
    public mutating func recordEcho(of sequenceNumber: UInt16) {
        roundTripLoss.recordEcho(of: sequenceNumber)
    }

    /// Records the edge's cumulative view of the uplink.
    ///
    /// ``uplink``, which the samples read, is the report that arrived last unless it expects
    /// fewer packets (a reordered echo): so a sample's uplink jitter is the edge's J about one
    /// downlink delay earlier, which the accuracy benchmark checks. ``uplinkTotals`` is the edge's
    /// latest view: its counts never go down, so a report expecting as many packets but having
    /// received fewer is older (an echo overtaken by the echo of a late packet that filled a gap).
    public mutating func recordUplink(_ report: UplinkReport) {
        if uplink == nil || report.expected >= uplink?.expected ?? 0 {
            uplink = report
        }
        if let totals = uplinkTotals,
            report.expected < totals.expected || (report.expected == totals.expected && report.received < totals.received)
        {
            return
        }
        uplinkTotals = report
    }

    /// Closes the current second and returns its sample.
    /// - Parameters:
    ///   - timestamp: the sample's time, ms since the Unix epoch.
    ///   - codec: the codec in use (`""` before media flows).
    public mutating func takeSample(timestamp: Double, codec: String) -> StatsSample {
        if intervalRTT.count > 0 { lastRTT = intervalRTT.mean }
        // Silence is level 0: a second without audio from the edge must not repeat an old level.
        if !receivedInInterval { outputLevel = 0 }
        receivedInInterval = false
        intervalRTT = RunningSummary()
        let rtt = lastRTT ?? 0

        let downInterval = downlinkInterval.close(expected: downlink.expected, lost: downlink.lost)
        let down = DirectionStats(
            jitter: downlink.jitterMilliseconds, packetsLost: downlink.lost,
            packetsLostFraction: downInterval.percent, packetsExpected: downlink.expected)

        var up: DirectionStats?
        if let uplink {
            let expected = Int(uplink.expected)
            let lost = Swift.max(0, expected - Int(uplink.received))
            let interval = uplinkInterval.close(expected: expected, lost: lost)
            up = DirectionStats(
                jitter: Double(uplink.jitterMicroseconds) / 1000, packetsLost: lost,
                packetsLostFraction: interval.percent, packetsExpected: expected)
        }

        let upFraction = (up?.packetsLostFraction ?? 0) / 100
        let downFraction = down.packetsLostFraction / 100
        let lossPercent = 100 * (1 - (1 - upFraction) * (1 - downFraction))
        let jitter = Swift.max(up?.jitter ?? 0, down.jitter)
        let mos = MeanOpinionScore.mos(rtt: rtt, jitter: jitter, packetLossPercent: lossPercent)
        let eModel = EModel(rtt: rtt, jitterBufferDelay: 2 * jitter + 20, packetLossPercent: lossPercent).mos
        return StatsSample(
            timestamp: timestamp, rtt: rtt, jitter: jitter, mos: mos,
            packetsLost: down.packetsLost + (up?.packetsLost ?? 0), packetsLostFraction: lossPercent,
            packetsSent: packetsSent, packetsReceived: packetsReceived, bytesSent: bytesSent,
            bytesReceived: bytesReceived, codec: codec, audioInputLevel: inputLevel, audioOutputLevel: outputLevel,
            uplink: up, downlink: downlink.expected > 0 ? down : nil, eModelMOS: eModel)
    }
}
