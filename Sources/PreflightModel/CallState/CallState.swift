/// The state of a call, as `TVOCallState` of "Twilio Voice SDK: TVOCall" (docs/references.md).
///
/// "All TVOCall instances start in TVOCallStateConnecting and end in TVOCallStateDisconnected."
public enum CallState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Signaling is being set up; every call starts here.
    case connecting
    /// The remote side is being alerted (the signaling server sent `ringing`).
    case ringing
    /// Media flows; stats are delivered only in this state.
    case connected
    /// Signaling or media was interrupted while connected and is being recovered.
    case reconnecting
    /// The call ended; final, every later event is ignored.
    case disconnected
}
