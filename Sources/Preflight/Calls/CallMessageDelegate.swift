public import PreflightModel

/// Callbacks of a call's user-defined messages (Twilio's `TVOCallMessageDelegate`), given in
/// ``CallOptions/messageDelegate``. It only adapts ``Call/events()``. Every method has an empty default.
public protocol CallMessageDelegate: AnyObject, Sendable {
    /// The other party sent a message.
    func messageReceived(forCallSid callSid: String, message: CallMessage)
    /// The edge delivered a message ``Call/sendMessage(_:)`` sent; `voiceEventSid` is its id.
    func messageSent(forCallSid callSid: String, voiceEventSid: String)
    /// A message was not delivered.
    func messageFailed(forCallSid callSid: String, voiceEventSid: String, error: PreflightError)
}

extension CallMessageDelegate {
    /// Does nothing.
    public func messageReceived(forCallSid callSid: String, message: CallMessage) {}
    /// Does nothing.
    public func messageSent(forCallSid callSid: String, voiceEventSid: String) {}
    /// Does nothing.
    public func messageFailed(forCallSid callSid: String, voiceEventSid: String, error: PreflightError) {}
}
