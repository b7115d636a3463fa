/// An incoming call that stopped ringing before this device accepted it (Twilio's
/// `TVOCancelledCallInvite`).
public struct CancelledCallInvite: Sendable, Hashable {
    /// The call's identifier.
    public let callSid: String
    /// The caller (`client:<identity>`).
    public let from: String
    /// Whom the caller dialed.
    public let to: String
}
