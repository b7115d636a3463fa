extension ICEAgent {
    /// What an agent is allowed to do and how long it waits. The defaults are those of the
    /// preflight test (docs/protocol.md, "ICE").
    public struct Configuration: Sendable {
        /// Which candidates to gather: `.all` by default; `.relay` gathers TURN relays only.
        public var transportPolicy: ICETransportPolicy
        /// How long gathering may take before the candidates found so far are offered: 3 s.
        public var gatheringTimeout: Duration
        /// How long checking may take before ICE fails with no selected pair: 5 s.
        public var checkTimeout: Duration
        /// How long the selected pair may stay silent (no media, no consent answer) before the
        /// connection counts as disconnected and every pair is checked again: 2.5 s.
        public var disconnectTimeout: Duration
        /// How long a disconnected connection waits for a consent answer before ICE fails
        /// (RFC 7675 §5.1: 30 s): 30 s.
        public var consentTimeout: Duration
        /// The interval of consent checks on the selected pair, randomized to 0.8–1.2 of it (RFC
        /// 7675 §5.1): 2 s; 0.5 s while disconnected.
        public var consentInterval: Duration
        /// The ICE component the agent's candidates belong to: 1 (RTP, or RTP and RTCP muxed).
        public var component: Int
        /// The SOFTWARE attribute of gathering requests: `preflight-swift/<version>`.
        public var software: String
        /// Wall-clock milliseconds since the Unix epoch at the agent's time 0, for the timestamps
        /// of its timeline and error records: 0 by default (times are then relative).
        public var wallClockOrigin: Double
        /// The pacing and retransmission of the connectivity checks.
        public var checks: ICECheckList.Configuration
        /// What error messages call the remote agent: "the remote side" by default; "the edge"
        /// for a preflight test.
        public var peerName: String

        /// Creates a configuration; every parameter has the default documented on its property.
        public init(
            transportPolicy: ICETransportPolicy = .all, gatheringTimeout: Duration = .seconds(3),
            checkTimeout: Duration = .seconds(5), disconnectTimeout: Duration = .milliseconds(2500),
            consentTimeout: Duration = .seconds(30), consentInterval: Duration = .seconds(2), component: Int = 1,
            software: String = "preflight-swift/\(PreflightVersion.current)", wallClockOrigin: Double = 0,
            checks: ICECheckList.Configuration = ICECheckList.Configuration(), peerName: String = "the remote side"
        ) {
            self.transportPolicy = transportPolicy
            self.gatheringTimeout = gatheringTimeout
            self.checkTimeout = checkTimeout
            self.disconnectTimeout = disconnectTimeout
            self.consentTimeout = consentTimeout
            self.consentInterval = consentInterval
            self.component = component
            self.software = software
            self.wallClockOrigin = wallClockOrigin
            self.checks = checks
            self.peerName = peerName
        }
    }
}
