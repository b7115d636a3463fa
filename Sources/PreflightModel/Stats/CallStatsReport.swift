/// A call's statistics at one moment, shaped as WebRTC's stats and Twilio's `TVOStatsReport`:
/// the local (sent) and remote (received) audio tracks and the selected candidate pair. Given
/// by ``Call/getStats()`` while the call is connected.
public struct CallStatsReport: Sendable, Hashable, Codable {
    /// The call's media connection (the local ICE ufrag).
    public var peerConnectionId: String
    /// When the report was made: milliseconds since the Unix epoch.
    public var timestamp: Int64
    /// The audio this device sends (one track).
    public var localAudioTrackStats: [LocalAudioTrackStats]
    /// The audio this device receives (one track once media arrived).
    public var remoteAudioTrackStats: [RemoteAudioTrackStats]
    /// The candidate pair media flows on.
    public var selectedIceCandidatePair: ICECandidatePairStats?

    /// Creates a report.
    public init(
        peerConnectionId: String, timestamp: Int64, localAudioTrackStats: [LocalAudioTrackStats],
        remoteAudioTrackStats: [RemoteAudioTrackStats], selectedIceCandidatePair: ICECandidatePairStats?
    ) {
        self.peerConnectionId = peerConnectionId
        self.timestamp = timestamp
        self.localAudioTrackStats = localAudioTrackStats
        self.remoteAudioTrackStats = remoteAudioTrackStats
        self.selectedIceCandidatePair = selectedIceCandidatePair
    }
}
