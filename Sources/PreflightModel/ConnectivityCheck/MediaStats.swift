/// The `stats` of 100ms's `HMSMediaServerReport`: audio and video apart.
public struct MediaStats: Sendable, Hashable, Codable {
    /// The audio stream's figures.
    public var audio: TrackStats
    /// The video stream's figures.
    public var video: TrackStats

    /// Creates the stats.
    public init(audio: TrackStats = TrackStats(), video: TrackStats = TrackStats()) {
        self.audio = audio
        self.video = video
    }
}
