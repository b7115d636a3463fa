/// Which side of the call this device is, which decides the call's lifecycle ("Twilio Voice SDK: TVOCall":
/// "Devices that initiate an outbound call represent the caller and devices that receive a
/// TVOCallInvite represent the callee").
public enum CallRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// This device placed the call (a Preflight test call is always the caller).
    case caller
    /// This device accepted an incoming invite.
    case callee
}
