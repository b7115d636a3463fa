extension SignalingMessage {
    /// The body of `probe`: start a last-mile probe on this session (docs/protocol.md).
    public struct Probe: Sendable, Hashable, Codable {
        /// The client's ICE parameters and candidates, as an invite's.
        public var ice: ICEParameters
        /// The uplink's expected bitrate, bps (100,000…5,000,000); `nil` when the uplink is not probed.
        public var expectedUplinkBitrate: Int?
        /// The downlink's expected bitrate, bps (100,000…5,000,000); `nil` when the downlink is not
        /// probed. It sets the downlink trains' rate ceiling and byte budget.
        public var expectedDownlinkBitrate: Int?

        /// Creates the body.
        public init(ice: ICEParameters, expectedUplinkBitrate: Int?, expectedDownlinkBitrate: Int?) {
            self.ice = ice
            self.expectedUplinkBitrate = expectedUplinkBitrate
            self.expectedDownlinkBitrate = expectedDownlinkBitrate
        }
    }

    /// The body of `probeTrain`: from now on the edge sends probe packets of `size` bytes (UDP
    /// payload) to the client at `rate` bps (wire bits), paced, for `duration` ms; a new train
    /// replaces the current one without a gap in the pacing. Rate 0 stops.
    public struct ProbeTrain: Sendable, Hashable, Codable {
        /// Wire bits per second (UDP payload + 42 B per IPv4 packet, 62 B per IPv6 packet).
        public var rate: Int
        /// UDP payload bytes per packet.
        public var size: Int
        /// Milliseconds the train lasts unless replaced.
        public var duration: Int

        /// Creates the body.
        public init(rate: Int, size: Int, duration: Int) {
            self.rate = rate
            self.size = size
            self.duration = duration
        }
    }

    /// The body of `probeArrivals`: the uplink probe packets the edge received since the last
    /// batch, three numbers each: the probe sequence number, the arrival time (µs on the edge's
    /// monotonic clock) and the UDP payload size in bytes.
    public struct ProbeArrivals: Sendable, Hashable, Codable {
        /// The most records one message carries.
        public static let maximumRecords = 2048

        /// Flattened triples `[sequence, arrivalMicroseconds, bytes, …]`.
        public var records: [UInt64]
        /// Records the edge dropped since the last batch because its buffer was full.
        public var dropped: Int

        /// Creates the body.
        public init(records: [UInt64], dropped: Int = 0) {
            self.records = records
            self.dropped = dropped
        }

        /// Each record, or `nil` when the array is not a whole number of triples or holds more than
        /// ``maximumRecords``.
        public var arrivals: [(sequence: UInt32, arrivalMicroseconds: UInt64, bytes: Int)]? {
            guard records.count % 3 == 0, records.count / 3 <= Self.maximumRecords else { return nil }
            return stride(from: 0, to: records.count, by: 3).map { index in
                (UInt32(truncatingIfNeeded: records[index]), records[index + 1], Int(min(records[index + 2], 65_535)))
            }
        }
    }
}
