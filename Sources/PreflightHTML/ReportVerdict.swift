import PreflightModel

/// What a preflight test means for calls, in plain words, and what to do about it: the report
/// page's first card. Read from the report alone: its error, callQuality, warnings and TURN use.
public struct ReportVerdict: Sendable, Hashable {
    /// How the call would go.
    public enum Level: String, Sendable, Hashable {
        /// Excellent or great: calls should sound clear.
        case good
        /// Good or fair: calls work, with some trouble.
        case fair
        /// Degraded, or the test failed.
        case bad
    }

    /// The level.
    public var level: Level
    /// One sentence.
    public var headline: String
    /// What to do, most important first; empty when nothing needs doing.
    public var advice: [String]

    /// The verdict of `report`.
    public init(_ report: PreflightReport) {
        var advice: [String] = []
        if let error = report.error {
            level = .bad
            headline = "The test failed: \(error.message) (error \(error.code))."
            switch error.code {
            case 53000, 53001, 53002:
                advice.append("The edge could not be reached over its signaling WebSocket: check that this network (a firewall, a proxy) allows WebSocket connections to the edge's address and port.")
            case 53405:
                advice.append("Media could not connect: UDP to the media servers is blocked and no TURN relay worked. Allow outgoing UDP, or give the client a TURN server over TCP or TLS on port 443.")
            case 20101...20199:
                advice.append("The access token was refused: mint a new one with the right API key, account and grants.")
            case 31008:
                advice.append("The test was stopped before it finished: run it again for its full duration.")
            default:
                advice.append("Run the test again; if it fails the same way, report the error code with this page.")
            }
        } else {
            switch report.callQuality {
            case .excellent?, .great?:
                level = .good
                headline = "Calls from this network should sound clear."
            case .good?:
                level = .fair
                headline = "Calls should work well, with an occasional blemish."
            case .fair?:
                level = .fair
                headline = "Calls will work but may sound choppy or delayed at times."
            case .degraded?:
                level = .bad
                headline = "Calls from this network will likely sound poor."
            case nil:
                level = .fair
                headline = "The test collected too little to judge call quality."
            }
        }
        let raised = Set(report.warnings.map(\.name))
        if raised.contains("high-rtt") || report.networkStats.rtt.average > 300 {
            advice.append("Round-trip time is high (\(HTMLText.number(report.networkStats.rtt.average, 0)) ms on average): use a nearer edge, and avoid VPNs and satellite or mobile links with long delays.")
        }
        if raised.contains("high-jitter") {
            advice.append("Jitter is high: another device or application is loading the network. Pause large downloads or streams, use wired Ethernet, or move closer to the Wi-Fi access point.")
        }
        if raised.contains("high-packets-lost-fraction") {
            advice.append("Packets are being lost: Wi-Fi interference or a congested link. Use wired Ethernet or a less busy Wi-Fi channel, and check the uplink and downlink loss below to see which way it happens.")
        }
        if raised.contains("low-mos"), advice.count < 2 {
            advice.append("The estimated call quality (MOS) dropped below 3.5 for a while: see the charts for when, and which metric caused it.")
        }
        if report.isTurnRequired == true {
            advice.append("Media went through a TURN relay: direct UDP to the media servers is blocked. Calls work, with added delay; allowing outgoing UDP to the edge would improve them.")
        }
        self.advice = advice
    }
}
