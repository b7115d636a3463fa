import Synchronization

extension MediaService {
    /// Counters of what the service did, for tests, logs and metrics.
    public struct Counters: Sendable, Hashable {
        /// Datagrams read from the media socket.
        public var datagramsReceived = 0
        /// Datagrams written to it (replies, echoes, playback, probe trains, bridged media).
        public var datagramsSent = 0
        /// Binding checks answered with a success response.
        public var checksAnswered = 0
        /// Binding checks refused with an error response (unknown username, bad integrity).
        public var checksRefused = 0
        /// Plain Binding requests (no credentials) answered with the source's reflexive address.
        public var bindingsAnswered = 0
        /// RTP packets echoed.
        public var packetsEchoed = 0
        /// RTP packets recorded by record-playback sessions.
        public var packetsRecorded = 0
        /// RTP packets played back by record-playback sessions.
        public var packetsPlayedBack = 0
        /// RFC 4733 telephone-event packets received on bridge legs.
        public var telephoneEventsReceived = 0
        /// RTP packets forwarded from one leg of a bridged call to the other.
        public var packetsBridged = 0
        /// RTP packets sent to, and received from, other edges on calls' trunk legs.
        public var trunkPacketsSent = 0
        public var trunkPacketsReceived = 0
        /// Trunk hellos sent (while the other edge has not answered for a call), and RTCP a trunk
        /// leg received (hellos, reports).
        public var trunkHellosSent = 0
        public var trunkControlReceived = 0
        /// RTP packets of a bridge leg whose other leg is not connected yet (ringing, or it
        /// has not nominated a pair): dropped.
        public var droppedUnbridged = 0
        /// SRTP/SRTCP of an encrypted leg that did not authenticate or was replayed: dropped.
        public var droppedUndecryptable = 0
        /// RTCP compound packets answered with a report.
        public var rtcpAnswered = 0
        /// Media from an address that has not passed a check: dropped.
        public var droppedUnverified = 0
        /// Datagrams that are neither a valid STUN check nor RTP/RTCP: dropped.
        public var droppedMalformed = 0
        /// Datagrams over a source's packet-rate limit: dropped before any processing.
        public var droppedRateLimited = 0
        /// Replies not sent because the destination's ``SendBudget`` would be exceeded.
        public var droppedOverBudget = 0
        /// Frames not recorded because a recording byte budget was spent.
        public var droppedOverRecordingBudget = 0
        /// RTP packets of a payload type other than the session's codec (or RFC 4733 events on a
        /// bridge): not recorded, not bridged.
        public var droppedWrongPayloadType = 0
        /// Uplink probe packets received and recorded for their client.
        public var probePacketsReceived = 0
        /// Downlink probe packets sent.
        public var probePacketsSent = 0
        /// Datagrams from a probing client over its probe's byte rate: dropped before any processing.
        public var droppedOverProbeRate = 0
        /// Uplink arrival records dropped because the session's buffer was full (the signaling
        /// did not keep up).
        public var droppedProbeRecords = 0
        /// Downlink trains not sent (counted once a train): the byte budget was spent, or the peer
        /// has not granted consent within the last 3 s (``ProbeConsent``).
        public var probePacketsWithheld = 0
        /// Consent requests the edge sent to probe clients (RFC 7675's Binding requests).
        public var consentRequestsSent = 0
        /// Consent requests that were due but not sent: the address's send budget was spent (it
        /// did not answer the last one).
        public var consentRequestsWithheld = 0
        /// Answers to consent requests that granted consent: from the address asked, with an
        /// outstanding transaction ID and the client's integrity.
        public var consentAnswers = 0
    }

    /// Counts a datagram dropped before routing because it was malformed (a media thread's
    /// datagram longer than its 2 KiB slot).
    func countMalformed() {
        state.withLock { $0.counters.droppedMalformed += 1 }
    }
}
