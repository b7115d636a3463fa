/// An Insights event of the `connection` group ("Twilio Voice SDK: TVOCall", Insights); the raw value is the
/// event name.
public enum CallInsightsEvent: String, Sendable, Hashable, Codable, CaseIterable {
    /// "Audio input of the call is muted by calling [TVOCall setMuted:] with YES."
    case muted
    /// "Audio input of the call is unmuted by calling [TVOCall setMuted:] with NO."
    case unmuted
    /// "Server returns an answer to the Client's offer over the signaling channel."
    case acceptedByRemote = "accepted-by-remote"
    /// "Call state transitions to TVOCallStateRinging."
    case ringing
    /// "Call state transitions to TVOCallStateConnected."
    case connected
    /// "[TVOCall disconnect] is called."
    case disconnectCalled = "disconnect-called"
    /// "Call disconnected as a result of calling [TVOCall disconnect]. Call transitions to
    /// TVOCallStateDisconnected."
    case disconnectedByLocal = "disconnected-by-local"
    /// "Call is disconnected by the remote. Call transitions to TVOCallStateDisconnected."
    case disconnectedByRemote = "disconnected-by-remote"
    /// "Call is on hold by calling [TVOCall setOnHold:] with YES."
    case hold
    /// "Call is on unhold by calling [TVOCall setOnHold:] with NO."
    case unhold
    /// "Error description. Call state transitions to TVOCallStateDisconnected."
    case error
    /// "The Call is attempting to recover from a signaling or media connection interruption"
    case reconnecting
    /// "The Call has recovered from a signaling or media connection interruption"
    case reconnected
}
