import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import PreflightCore
import Synchronization

/// The one owner of a signaling session's state: takes the session's events in order
/// (``SessionInbox``), moves it through its phases (hello, ready, call), answers on the
/// connection, and starts the timers that post back to the queue. Returns when the session ends,
/// after releasing its media session, its call, its registration and its admission.
struct SessionLoop {
    typealias Event = SignalingSession.Event
    typealias Phase = SignalingSession.Phase

    let session: SignalingSession
    let inbox: SessionInbox
    let reader: SignalingSession.ReaderState
    /// Where replies go: this connection, or the one that resumed the session.
    var outbound: WebSocketOutboundWriter
    var phase = Phase.awaitingHello
    var attachment: SessionResumptions.Attachment?
    var ending = SignalingSession.Ending.here
    var sessionId = ""
    var resumeToken = ""
    /// Counts phase changes: a timer's event carries the number of the phase that started it, so
    /// the timer of a phase already left is ignored.
    var phaseNumber = 0
    /// The phase's timer, cancelled when the phase is left: a sleeping task would still wake at
    /// its deadline, so a thousand sessions past their hello and invite would wake the edge two
    /// thousand times ten seconds later (docs/lab.md, "Edge throughput").
    var phaseTimer: Scheduled<Void>?
    var admission: SessionAdmissions.Holder?
    /// This session as a party of calls between clients (from its `hello`).
    var party: CallRouter.Party?
    /// Whether incoming calls ring here.
    var registered = false
    /// Calls ringing here now (at most ``CallRouter/maximumOffersPerSession``).
    var offered: Set<String> = []
    /// Media sessions of calls that ended here, kept answering checks for ``mediaLinger``.
    var lingering: Set<String> = []
    /// How long a call's media session outlives its call.
    static let mediaLinger: Duration = .seconds(2)
    /// When the session's last call messages went out (at most ``CallMessage/maximumPerWindow``).
    var messageTimes: [ContinuousClock.Instant] = []
    /// The session's own Insights rate (``CallLimits/sessionInsightsRate``).
    var insightsBucket: TokenBucket

    var edge: EdgeServer { session.edge }
    var configuration: EdgeConfiguration { edge.configuration }
    var logger: Logger { session.logger }

    init(session: SignalingSession, inbox: SessionInbox, outbound: WebSocketOutboundWriter, reader: SignalingSession.ReaderState) {
        self.session = session
        self.inbox = inbox
        self.outbound = outbound
        self.reader = reader
        insightsBucket = CallEventLog.sessionBucket(session.edge.configuration.callLimits)
    }

    mutating func run() async -> SignalingSession.Ending {
        await withTaskGroup(of: Void.self) { timers in
            startTimer(configuration.signalingTimeout)
            for await event in inbox.events {
                inbox.took(event)
                if case .end = await handle(event, timers: &timers) { break }
            }
            release()
            phaseTimer?.cancel()
            timers.cancelAll()
        }
        return ending
    }

    /// Frees what the session holds; the other party of its call is told (31005).
    mutating func release() {
        if case .resumedOther = ending {
            // This connection's own session never began (no hello): nothing to release.
            return
        }
        edge.resumptions.detach(sessionId: sessionId)
        if case .inCall(let call) = phase {
            if let ufrag = call.ufrag { edge.media.removeSession(localUfrag: ufrag) }
            if let ufrag = call.subscribeUfrag { edge.media.removeSession(localUfrag: ufrag) }
            if call.application == nil {
                edge.calls.hangUp(
                    callSid: call.callSid, by: sessionId, reason: "the other party's connection was lost", code: .connectionError)
            }
        }
        for ufrag in lingering { edge.media.removeSession(localUfrag: ufrag) }
        if let party { edge.calls.sessionEnded(party) }
        if let admission {
            edge.admissions.withLock { $0.release(admission) }
        }
        // A session that moved ends on its new connection: that one closes itself.
        attachment?.ended.finish()
    }

    // MARK: Phases and timers

    /// Starts the phase's timer, on an event loop's timer heap, in place of the last phase's.
    mutating func startTimer(_ duration: Duration) {
        let number = phaseNumber
        let inbox = inbox
        phaseTimer?.cancel()
        phaseTimer = MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: TimeAmount(duration)) {
            inbox.post(.timeout(phaseNumber: number))
        }
    }

    /// Enters `next` with its timer: an unregistered session in no call must invite within the
    /// signaling timeout, a registered one waits as long as it likes; a call has its maximum.
    mutating func enter(_ next: Phase) {
        phase = next
        phaseNumber += 1
        switch next {
        case .awaitingHello:
            phaseTimer?.cancel()
        case .ready:
            if registered { phaseTimer?.cancel() } else { startTimer(configuration.signalingTimeout) }
        case .inCall(let call):
            startTimer(call.application == nil ? configuration.maximumCallDuration : configuration.maximumTestDuration)
        }
    }

    // MARK: Writing

    func send(_ message: SignalingMessage) async {
        do {
            try await outbound.write(.text(message.jsonText()))
        } catch {
            logger.debug("signaling write failed", metadata: ["error": "\(error)"])
        }
    }

    func fail(_ error: PreflightError, callSid: String? = nil) async {
        logger.info(
            "signaling session refused",
            metadata: ["code": "\(error.code)", "reason": "\(UntrustedText.excerpt(error.message, limit: 240))"])
        await send(.error(.init(code: error.code.rawValue, message: error.message, callSid: callSid)))
    }
}
