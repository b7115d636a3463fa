import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import PreflightCore
import Synchronization

/// The driver of one ``SignalingSessionMachine``: takes the session's events in order
/// (``SessionInbox``), hands them to the machine with the time, and does what the machine asks:
/// writes its messages on the connection, verifies tokens, parks and resumes, plays recordings
/// back; and arms the machine's one timer (on an event loop's timer heap, posting to the queue).
/// Returns when the session ends; the machine has then released what it held.
struct SessionLoop {
    typealias Event = SignalingSession.Event

    let session: SignalingSession
    let inbox: SessionInbox
    let reader: SignalingSession.ReaderState
    /// Where replies go: this connection, or the one that resumed the session.
    var outbound: WebSocketOutboundWriter
    var machine: SignalingSessionMachine
    var attachment: SessionResumptions.Attachment?
    var ending = SignalingSession.Ending.here
    /// The machine's timer and the deadline it is armed for. A timer cancelled too late may
    /// still post: its event carries an older generation.
    var timer: Scheduled<Void>?
    var armedDeadline: Double?
    var timerGeneration = 0

    var edge: EdgeServer { session.edge }
    var logger: Logger { session.logger }

    init(session: SignalingSession, inbox: SessionInbox, outbound: WebSocketOutboundWriter, reader: SignalingSession.ReaderState) {
        self.session = session
        self.inbox = inbox
        self.outbound = outbound
        self.reader = reader
        machine = SignalingSessionMachine(environment: session.environment(notices: inbox), now: session.edge.monotonicSeconds)
    }

    mutating func run() async -> SignalingSession.Ending {
        await withTaskGroup(of: Void.self) { tasks in
            arm()
            for await event in inbox.events {
                inbox.took(event)
                let now = edge.monotonicSeconds
                switch event {
                case .timer(let generation):
                    if generation == timerGeneration { armedDeadline = nil }
                    machine.poll(now: now)
                case .message(let message): machine.handle(.message(message), now: now)
                case .malformed(let error): machine.handle(.malformed(error), now: now)
                case .closed(let protocolError): machine.handle(.closed(protocolError: protocolError), now: now)
                case .call(let notice): machine.handle(.call(notice), now: now)
                case .media(let notice): machine.handle(.media(notice), now: now)
                case .takenOver(let token): machine.handle(.takenOver(token: token), now: now)
                case .draining(let limitReached): machine.handle(.draining(limitReached: limitReached), now: now)
                }
                await perform(tasks: &tasks)
                if machine.isEnded { break }
                arm()
            }
            if !machine.isEnded {
                machine.end()
                await perform(tasks: &tasks)
            }
            timer?.cancel()
            tasks.cancelAll()
        }
        // A session that moved ends on its new connection: that one closes itself.
        if case .resumedOther = ending {} else { attachment?.ended.finish() }
        return ending
    }

    /// Does what the machine asks, in order, until it asks nothing more (an answer it waited
    /// for may ask for more).
    mutating func perform(tasks: inout TaskGroup<Void>) async {
        var outputs = machine.takeOutputs()
        while !outputs.isEmpty {
            for output in outputs {
                await perform(output, tasks: &tasks)
            }
            outputs = machine.takeOutputs()
        }
    }

    private mutating func perform(_ output: SignalingSessionMachine.Output, tasks: inout TaskGroup<Void>) async {
        switch output {
        case .send(let message):
            do {
                try await outbound.write(.text(message.jsonText()))
            } catch {
                logger.debug("signaling write failed", metadata: ["error": "\(error)"])
            }
        case .verifyToken(let token):
            let result: Result<AccessTokenClaims, PreflightError>
            do throws(PreflightError) {
                result = .success(try await edge.verifier.verify(token))
            } catch {
                result = .failure(error)
            }
            machine.handle(.tokenVerified(result), now: edge.monotonicSeconds)
        case .attachResumption(let sessionId, let token):
            edge.resumptions.attach(sessionId: sessionId, token: token, events: inbox)
        case .detachResumption(let sessionId):
            edge.resumptions.detach(sessionId: sessionId)
        case .detachReader:
            (attachment?.reader ?? reader).target.withLock { $0 = SessionInbox.detached }
        case .park(let sessionId, let token):
            attachment?.ended.finish()
            let resumed = await edge.resumptions.park(
                sessionId: sessionId, token: token, events: inbox, until: .now + edge.configuration.sessionResumeWindow)
            // This connection was lost either way: the one that resumed closes itself.
            ending = .connectionLost
            attachment = resumed
            if let resumed { outbound = resumed.outbound }
            machine.handle(resumed == nil ? .notResumed : .resumed, now: edge.monotonicSeconds)
        case .resumeOther(let request):
            let (ended, endedContinuation) = AsyncStream<Never>.makeStream()
            let reader = reader
            let resumed = await edge.resumptions.resume(
                sessionId: request.sessionId, token: request.resumeToken,
                attachment: SessionResumptions.Attachment(outbound: outbound, ended: endedContinuation, reader: reader),
                redirect: { target in reader.target.withLock { $0 = target } })
            if resumed { ending = .resumedOther(ended: ended) }
            machine.handle(.resumedOther(resumed), now: edge.monotonicSeconds)
        case .playRecording(let ufrag):
            let media = edge.media
            let inbox = inbox
            let logger = logger
            tasks.addTask {
                let played = await media.playRecording(localUfrag: ufrag)
                logger.debug("playback done", metadata: ["frames": "\(played)"])
                inbox.post(.media(.playbackFinished(ufrag: ufrag)))
            }
        case .runProbeDownlink(let ufrag):
            let media = edge.media
            tasks.addTask { _ = await media.runProbeDownlink(localUfrag: ufrag) }
        }
    }

    /// Arms the one timer for the machine's next deadline, in place of the last one: a
    /// sleeping task per limit would wake a thousand sessions past their hello and invite two
    /// thousand times ten seconds later (docs/lab.md, "Edge throughput").
    private mutating func arm() {
        let deadline = machine.nextDeadline
        guard deadline != armedDeadline else { return }
        timer?.cancel()
        timer = nil
        armedDeadline = deadline
        guard let deadline else { return }
        timerGeneration += 1
        let generation = timerGeneration
        let inbox = inbox
        // At most a year away: a deadline beyond that (a configured limit of centuries) waits
        // for the next arming.
        let delay = min(max(0, deadline - edge.monotonicSeconds), 366 * 86_400)
        timer = MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: .nanoseconds(Int64((delay * 1e9).rounded(.up)))) {
            inbox.post(.timer(generation: generation))
        }
    }
}

extension SessionInbox: SessionNoticeSink {
    func deliver(_ notice: CallRouter.Notice) {
        post(.call(notice))
    }

    func deliver(_ notice: SessionMediaNotice) {
        post(.media(notice))
    }
}
