/// The edge's test applications, chosen by the access token's outgoing application sid.
public enum TestApplication: String, Sendable, Hashable, Codable, CaseIterable {
    /// Reflects every RTP packet at once, with the echo fields of `MediaExtension`, for as long as
    /// the caller stays.
    case echo
    /// The vendor's record-and-playback flow (000_9ed1e877f5b4b729.txt): records up to 5 s of the
    /// caller's audio, plays it back paced at 20 ms, pauses 3 s and hangs up.
    case recordPlayback = "record-playback"
}
