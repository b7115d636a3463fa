extension MediaService {
    /// What the edge knows of one session's media, for logs and its own reports.
    public struct SessionStatistics: Sendable, Hashable {
        /// RTP packets received from the client (distinct).
        public var received: Int
        /// RTP packets the client's sequence numbers say were sent.
        public var expected: Int
        /// Uplink interarrival jitter, ms.
        public var jitterMilliseconds: Double
        /// RTP packets the edge sent to the client.
        public var sent: Int
        /// Frames recorded (record-playback).
        public var recordedFrames: Int
        /// When the first RTP packet arrived, seconds on the service's clock; `nil` before.
        public var firstMediaTime: Double?
    }
}
