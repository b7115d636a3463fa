import PreflightCore

extension MediaService {
    /// The edge's half of a last-mile probe (docs/protocol.md, "Last-mile probe"): it records
    /// the uplink's probe packets for the client, and sends the downlink's trains the client asks
    /// for, within limits that keep the probe from becoming an amplifier (docs/security.md).
    struct ProbeSession {
        /// The expected bitrates the probe was opened with, bps.
        let expectedUplink: Int?
        let expectedDownlink: Int?
        /// Uplink arrival records not yet taken: triples of sequence, arrival µs, UDP bytes.
        var records: [UInt64] = []
        var droppedRecords = 0
        /// The byte bucket the client's datagrams pass: 2 × the expected uplink bitrate, 64 KB deep.
        var uplinkTokens: Double
        var uplinkClock: Double
        /// The downlink train: rate (wire bps), UDP payload size, and when it ends.
        var train: (rate: Double, size: Int, until: Double)?
        var sequence: UInt32 = 0
        var pacer = ProbePacer()
        /// Downlink bytes the probe may still send (wire bytes).
        var downlinkBudget: Int
        /// Whether the client consents to the downlink at its address (``ProbeConsent``).
        var consent = ProbeConsent()
        /// The client's ICE password as a key: it signs the edge's consent requests and their answers.
        let clientKey: STUNIntegrityKey

        /// The most records held between two takes.
        static let maximumRecords = SignalingMessage.ProbeArrivals.maximumRecords * 2
        /// The uplink bucket's depth, bytes.
        static let uplinkBurst = 64.0 * 1024
        /// A train's rate ceiling over the expected downlink bitrate.
        static let downlinkRateFactor = 2.0
        /// The downlink byte budget: this many seconds at the expected bitrate.
        static let downlinkBudgetSeconds = 12.0
        /// The longest train one request starts, milliseconds.
        static let maximumTrainDuration = 1000
        init(expectedUplink: Int?, expectedDownlink: Int?, clientPassword: String, now: Double) {
            self.expectedUplink = expectedUplink
            self.expectedDownlink = expectedDownlink
            uplinkTokens = Self.uplinkBurst
            uplinkClock = now
            downlinkBudget = Int(Double(expectedDownlink ?? 0) / 8 * Self.downlinkBudgetSeconds)
            clientKey = STUNIntegrityKey(Array(clientPassword.utf8))
        }

        /// Whether a datagram of `bytes` from the client fits the uplink bucket (and takes its tokens).
        mutating func admit(bytes: Int, at now: Double) -> Bool {
            let rate = Double(expectedUplink ?? 0) * Self.downlinkRateFactor / 8
            uplinkTokens = min(Self.uplinkBurst, uplinkTokens + max(0, now - uplinkClock) * rate)
            uplinkClock = max(uplinkClock, now)
            guard uplinkTokens >= Double(bytes) else { return false }
            uplinkTokens -= Double(bytes)
            return true
        }

        /// Keeps one uplink arrival record; `false` when the buffer is full.
        mutating func record(sequence: UInt32, arrivalMicroseconds: UInt64, bytes: Int) -> Bool {
            guard records.count / 3 < Self.maximumRecords else {
                droppedRecords += 1
                return false
            }
            records += [UInt64(sequence), arrivalMicroseconds, UInt64(bytes)]
            return true
        }
    }
}
