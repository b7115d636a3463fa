import PreflightCore
import Synchronization

/// Where what happens outside a signaling session reaches it: its queue (``SessionInbox``).
/// The call router and the media service deliver here; the session's one loop takes the
/// notices in order with everything else.
protocol SessionNoticeSink: AnyObject, Sendable {
    /// Something the other party of a call did, or a call ringing here.
    func deliver(_ notice: CallRouter.Notice)
    /// Something the media service did for one of the session's media sessions.
    func deliver(_ notice: SessionMediaNotice)
}

/// What the media service tells a session about one of its media sessions.
enum SessionMediaNotice: Sendable, Equatable {
    /// A record-playback session's recording progressed (its first packet came, it is full).
    case recording(ufrag: String, MediaService.RecordingProgress)
    /// A record-playback session's playback was sent.
    case playbackFinished(ufrag: String)
}

/// The calls between clients as a session sees them: the registrar and the calls ringing or
/// bridged (``CallRouter`` on one edge). What concerns another session reaches it through its
/// ``SessionNoticeSink``.
protocol CallRouting: Sendable {
    func register(_ party: CallRouter.Party)
    func dial(
        callSid: String, from caller: CallRouter.Party, identity: String, to: String, params: [String: String],
        format: AudioPayloadFormat, at now: Double
    ) throws(PreflightError)
    func format(of callSid: String) -> AudioPayloadFormat?
    func accept(callSid: String, by party: CallRouter.Party) -> CallRouter.AcceptOutcome
    func reject(callSid: String, by sessionId: String)
    func ringTimedOut(callSid: String) -> Bool
    func hangUp(callSid: String, by sessionId: String, reason: String, code: PreflightError.Code?)
    func forward(_ message: SignalingMessage.Message, from sessionId: String) -> Bool
    func attachMedia(callSid: String, sessionId: String, ufrag: String)
    func sessionEnded(_ party: CallRouter.Party)
}

extension CallRouter: CallRouting {}

/// The media sessions a signaling session opens, changes and closes (``MediaService``): none
/// of these waits; what takes time (playing a recording back, a downlink probe) the driver runs.
protocol MediaSessions: Sendable {
    func addSession(
        _ credentials: ICELiteCredentials, application: TestApplication, recordingFrames: Int?, format: AudioPayloadFormat,
        onRecording: (@Sendable (MediaService.RecordingProgress) -> Void)?)
    func addBridgeLeg(
        _ credentials: ICELiteCredentials, srtp: (receive: SRTPKeyingMaterial, send: SRTPKeyingMaterial)?, format: AudioPayloadFormat
    ) throws(PreflightError)
    func addProbeSession(
        _ credentials: ICELiteCredentials, clientPassword: String, expectedUplinkBitrate: Int?, expectedDownlinkBitrate: Int?)
    func addCheckLegs(publish: ICELiteCredentials, subscribe: ICELiteCredentials, format: AudioPayloadFormat)
    func removeSession(localUfrag: String)
    func unlinkAll(localUfrag: String)
    func digits(localUfrag: String) -> String
    func startProbeTrain(localUfrag: String, _ train: SignalingMessage.ProbeTrain) throws(PreflightError)
    func takeProbeArrivals(localUfrag: String) -> SignalingMessage.ProbeArrivals?
}

extension MediaService: MediaSessions {}

/// Admission of signaled sessions: how many one edge, account and identity may hold.
protocol SessionAdmitting: Sendable {
    func admit(account: String, identity: String) throws(PreflightError) -> SessionAdmissions.Holder
    func release(_ holder: SessionAdmissions.Holder)
}

/// ``SessionAdmissions`` behind a lock, shared by an edge's sessions.
final class SessionAdmissionGate: SessionAdmitting {
    private let admissions: Mutex<SessionAdmissions>

    init(limits: SessionAdmissions.Limits) {
        admissions = Mutex(SessionAdmissions(limits: limits))
    }

    /// Sessions admitted now.
    var total: Int { admissions.withLock { $0.total } }

    func admit(account: String, identity: String) throws(PreflightError) -> SessionAdmissions.Holder {
        try admissions.withLock { admissions throws(PreflightError) in
            try admissions.admit(account: account, identity: identity)
        }
    }

    func release(_ holder: SessionAdmissions.Holder) {
        admissions.withLock { $0.release(holder) }
    }
}
