/// The test applications an edge runs, chosen by the access token's outgoing application sid.
/// One definition for the SDK (which knows how each call ends) and the edge (which runs them).
public enum TestApplication: String, Sendable, Hashable, Codable, CaseIterable {
    /// Reflects every RTP packet at once, with the echo fields of `MediaExtension`, for as long as
    /// the caller stays.
    case echo
    /// The record-and-playback flow of Twilio's Voice SDK preflight test: records up to 5 s of the
    /// caller's audio, plays it back paced at 20 ms, pauses 3 s and hangs up.
    case recordPlayback = "record-playback"
}
