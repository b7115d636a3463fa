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

    /// What a record-playback session's recording did (``MediaService/addSession(_:application:recordingFrames:format:onRecording:)``).
    public struct RecordingProgress: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The session's first packet came: the recording's time runs from now.
        public static let started = RecordingProgress(rawValue: 1)
        /// The recording holds its frames: nothing more is recorded.
        public static let full = RecordingProgress(rawValue: 2)
    }
}
