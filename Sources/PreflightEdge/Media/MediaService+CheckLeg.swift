import PreflightCore

extension MediaService {
    /// One leg of a connectivity check (100ms's publish and subscribe peer connections).
    struct CheckLeg {
        /// For the publish leg, the subscribe leg's local ufrag; `nil` on the subscribe leg.
        let subscribe: String?
        /// The publish leg's view of each stream it receives (audio, video), by SSRC: at most
        /// ``maximumStreams``; the stream's RTCP sender reports are answered from it.
        var streams: [UInt32: ReceiveStatistics] = [:]
        /// The subscribe leg's own video stream: its SSRC and next sequence number (its audio is
        /// the session's own stream).
        let videoSSRC: UInt32
        var videoSequence: UInt16

        /// Streams a publish leg takes: one audio, one video.
        static let maximumStreams = 2
    }
}
