public import PreflightModel

/// Callbacks of a ``Registration`` (Twilio's `TVONotificationDelegate`). It only adapts
/// ``Registration/events()``. Every method has an empty default.
public protocol NotificationDelegate: AnyObject, Sendable {
    /// A call rings on this registration: accept or reject it.
    func callInviteReceived(_ callInvite: CallInvite)
    /// A call stopped ringing before it was accepted here: the caller hung up, another device
    /// answered, or nobody answered in time (31480).
    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: PreflightError)
    /// A pre-call diagnosis changed state (Telnyx's `TxClientDelegate` callback of that name).
    func onPreCallDiagnosisStateUpdated(state: PreCallDiagnosisState)
}

extension NotificationDelegate {
    /// Does nothing.
    public func callInviteReceived(_ callInvite: CallInvite) {}
    /// Does nothing.
    public func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: PreflightError) {}
    /// Does nothing.
    public func onPreCallDiagnosisStateUpdated(state: PreCallDiagnosisState) {}
}
