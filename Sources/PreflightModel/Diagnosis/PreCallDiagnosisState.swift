/// Telnyx's `PreCallDiagnosisState`: what a pre-call diagnosis reports as it runs, on
/// `Registration.preCallDiagnosisStates()` and `NotificationDelegate.onPreCallDiagnosisStateUpdated(state:)`.
public enum PreCallDiagnosisState: Sendable {
    /// The diagnosis call was placed.
    case started
    /// The call ended with its figures.
    case completed(PreCallDiagnosis)
    /// The diagnosis could not be made; the error's code says why (docs/errors.md: 70501
    /// destinationNumberIsRequired, 70502 sessionIdIsRequired, 70503 noMetricsCollected, 31404
    /// callNotFound, 53000 socketConnectionFailed, or the call's own error).
    case failed(PreflightError?)
}
