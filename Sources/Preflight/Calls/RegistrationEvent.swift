public import PreflightModel

/// What a ``Registration`` reports on each stream of ``Registration/events()``.
public enum RegistrationEvent: Sendable {
    /// A call rings here.
    case callInvite(CallInvite)
    /// A call stopped ringing here; the error says why (31000 when the caller hung up or
    /// another device answered, 31480 when nobody answered in time).
    case cancelledCallInvite(CancelledCallInvite, error: PreflightError)
    /// A pre-call diagnosis (``Registration/startPreCallDiagnosis(testNumber:callerName:callerNumber:duration:)``)
    /// started, completed or failed.
    case preCallDiagnosisStateUpdated(PreCallDiagnosisState)
    /// The registration ended: `nil` after ``Registration/unregister()``, else why.
    case unregistered(PreflightError?)
}
