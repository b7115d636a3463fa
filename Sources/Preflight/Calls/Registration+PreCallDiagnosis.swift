import Foundation
import PreflightModel
internal import PreflightCore
import Synchronization

extension Registration {
    /// The longest pre-call diagnosis, seconds.
    public static let maximumPreCallDiagnosisDuration = 300.0

    /// Telnyx's pre-call diagnosis on this connected client: a real call to `testNumber` (a
    /// number the edge routes, normally to its echo application) that lasts `duration` seconds
    /// once connected, then hangs up and reports a ``PreCallDiagnosis`` from the call's samples.
    ///
    /// States arrive as ``RegistrationEvent/preCallDiagnosisStateUpdated(_:)`` on ``events()``
    /// (or ``preCallDiagnosisStates()``) and on the delegate's
    /// ``NotificationDelegate/onPreCallDiagnosisStateUpdated(state:)``: `started`, then
    /// `completed` or `failed`. One diagnosis runs at a time.
    /// - Parameters:
    ///   - testNumber: whom to call (the call's `To`).
    ///   - callerName: sent with the call as its `CallerName` parameter.
    ///   - callerNumber: sent with the call as its `CallerNumber` parameter.
    ///   - duration: seconds the call lasts once connected, 1–300; 10 by default.
    /// - Throws: what also comes as `failed`: 70501 (`destinationNumberIsRequired`) for an empty
    ///   number, 70502 (`sessionIdIsRequired`) when the registration has ended, 70005 for a
    ///   duration out of range or a diagnosis already running.
    public func startPreCallDiagnosis(
        testNumber: String, callerName: String? = nil, callerNumber: String? = nil, duration: Double = 10
    ) throws(PreflightError) {
        let number = testNumber.trimmingCharacters(in: .whitespacesAndNewlines)
        do throws(PreflightError) {
            guard !number.isEmpty else {
                throw PreflightError(code: .destinationNumberIsRequired, message: "pre-call diagnosis: a test number is required")
            }
            guard duration.isFinite, (1...Self.maximumPreCallDiagnosisDuration).contains(duration) else {
                throw PreflightError(code: .invalidArgument, message: "pre-call diagnosis: duration must be 1 to 300 s, got \(duration)")
            }
            try storage.withLock { state throws(PreflightError) in
                guard !state.ended else {
                    throw PreflightError(code: .sessionIdIsRequired, message: "pre-call diagnosis: the client is not connected")
                }
                guard !state.diagnosing else {
                    throw PreflightError(code: .invalidArgument, message: "pre-call diagnosis: one is already running")
                }
                state.diagnosing = true
            }
        } catch {
            publish(.preCallDiagnosisStateUpdated(.failed(error)))
            throw error
        }
        // `started` goes out before the call can end, so no subscriber sees an outcome first.
        // Its states go out as the registration's events; the handle keeps the outcome.
        let run = RunHandle<Never, PreCallDiagnosis, Void>(())
        storage.withLock { $0.diagnosisRun = run }
        publish(.preCallDiagnosisStateUpdated(.started))
        var params = ["To": number]
        if let callerName { params["CallerName"] = callerName }
        if let callerNumber { params["CallerNumber"] = callerNumber }
        let task = Task { [self] in
            let outcome = await PreCallDiagnosisRun(registration: self, params: params, duration: duration).run()
            storage.withLock { state in
                state.diagnosing = false
                state.diagnosis = nil
            }
            let result: Result<PreCallDiagnosis, PreflightError> = switch outcome {
            case .completed(let diagnosis): .success(diagnosis)
            case .failed(let error): .failure(error ?? PreflightError(code: .generalCallError, message: "pre-call diagnosis: failed"))
            case .started: .failure(PreflightError(code: .generalCallError, message: "pre-call diagnosis: ended without an outcome"))
            }
            run.finish(result) { _ in nil }
            publish(.preCallDiagnosisStateUpdated(outcome))
        }
        storage.withLock { state in
            if state.diagnosing { state.diagnosis = task }
        }
    }

    /// Waits for the running pre-call diagnosis, or returns the last one's outcome.
    /// - Returns: the diagnosis of one that completed.
    /// - Throws: the error a diagnosis failed with (as its `failed` state says); 70005 when
    ///   none was started.
    public func preCallDiagnosisResult() async throws(PreflightError) -> PreCallDiagnosis {
        guard let run = storage.withLock({ $0.diagnosisRun }) else {
            throw PreflightError(code: .invalidArgument, message: "pre-call diagnosis: none was started")
        }
        return try await run.result()
    }

    /// A stream of the pre-call diagnosis states from now on (``events()`` filtered); it
    /// finishes when the registration ends.
    public func preCallDiagnosisStates() -> AsyncStream<PreCallDiagnosisState> {
        let events = events()
        return AsyncStream { continuation in
            let task = Task {
                for await event in events {
                    if case .preCallDiagnosisStateUpdated(let state) = event { continuation.yield(state) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
