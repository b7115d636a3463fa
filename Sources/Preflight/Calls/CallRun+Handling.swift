import Foundation
import Synchronization
import Logging
import PreflightModel
internal import PreflightCore
internal import PreflightNIO

extension CallRun {
    /// Handles one input; an error it throws fails the call (``fail(_:)``).
    mutating func handle(_ input: Input, group: inout TaskGroup<Void>) async throws(PreflightError) {
        switch input {
        case .session(let session):
            try await handle(session, group: &group)
        case .sampleTick:
            takeSample()
            await flushInsights()
        case .user(.disconnect):
            await disconnect(group: &group)
        case .user(.message(let id, let message)):
            guard let callSid else { return }
            do throws(PreflightError) {
                try await signaling.send(.message(.init(callSid: callSid, id: id, message: message)))
            } catch {
                call.emit(.messageFailed(id: id, error: error))
            }
        case .user(.feedback(let event)):
            insights.append(event)
            await flushInsights()
        case .hangupDeadline:
            hangupPending = false
        case .digit(let digit):
            call.emit(.digitReceived(digit))
        }
    }

    /// The edge welcomed the session: gathering starts with its servers.
    mutating func welcomed(_ welcome: SignalingMessage.Welcome, group: inout TaskGroup<Void>) {
        edgeTakesCandidates = welcome.offers(SignalingMessage.Welcome.candidatesFeature)
        ice.gather(servers: welcome.iceServers + options.iceServers)
    }

    /// The host's networks changed (the ICE driver already follows them): the change is recorded
    /// (``NetworkSwitchTracker``), and the new host candidates go to the edge.
    mutating func networksChanged(_ change: NetworkChange) async {
        guard !change.isInitial else {
            networks.record(change, now: Self.nowMilliseconds())
            await trickle(change.candidates)
            return
        }
        // The signaling connection moves too: one that left by a network that went is dropped
        // and resumed on a new connection (the routing table picks a network that is left).
        let gone = Set(networks.snapshot.networks.flatMap(\.addresses)).subtracting(change.snapshot.networks.flatMap(\.addresses))
        let recorded = networks.records.count
        var noNetwork: PreflightError?
        if options.endsWithoutNetwork {
            do throws(PreflightError) { try networks.changed(change, now: Self.nowMilliseconds()) } catch { noNetwork = error }
        } else {
            networks.record(change, now: Self.nowMilliseconds())
        }
        for record in networks.records[recorded...] { note(record) }
        if let noNetwork {
            await fail(noNetwork)
            return
        }
        if !gone.isEmpty { signaling.dropConnection(ifBoundTo: gone) }
        await trickle(change.candidates)
        await flushInsights()
    }

    /// Tells the edge of local candidates found after the offer (`candidates`, at most
    /// ``SignalingMessage/Candidates/maximumCandidates`` a message), when it takes them. Those
    /// found before the edge named the call wait for it (the newest
    /// ``maximumUnsentCandidates``).
    mutating func trickle(_ candidates: [ICECandidate]) async {
        guard edgeTakesCandidates else { return }
        unsentCandidates = Array((unsentCandidates + candidates).suffix(Self.maximumUnsentCandidates))
        guard let callSid, offered, !unsentCandidates.isEmpty else { return }
        let sending = unsentCandidates
        unsentCandidates = []
        var start = 0
        while start < sending.count {
            let end = min(start + SignalingMessage.Candidates.maximumCandidates, sending.count)
            try? await signaling.send(.candidates(.init(callSid: callSid, candidates: Array(sending[start..<end]))))
            start = end
        }
    }

    /// The most candidates kept for the edge until it names the call.
    static let maximumUnsentCandidates = 64

    /// The agent selected `pair`: a network change waiting for it may be over.
    mutating func pathSelected(_ pair: ICECandidatePairStats) {
        if let record = networks.selected(pair, now: Self.nowMilliseconds()) { note(record) }
    }

    mutating func receive(_ datagram: Datagram, on leg: MediaLeg) {
        // The media session takes media on the event loop (`receiveMedia`); none comes here.
        media.receive(datagram)
    }

    // A call resumes its signaling session: media goes on while it is away.
    mutating func signalingInterrupted(_ error: PreflightError) {
        interrupt(.signaling, error)
    }

    mutating func signalingResumed() {
        recover(.signaling)
    }

    mutating func signalingClosed(_ error: PreflightError?) throws(PreflightError) {
        callOpen = false
        hangupPending = false
        throw Self.closedError(error)
    }

    /// What the ICE agent reported.
    mutating func handle(_ event: ICEAgent.Event, on leg: MediaLeg, group: inout TaskGroup<Void>) async {
        switch event {
        case .gatheringComplete(let parameters, let gathered):
            guard !call.isDisconnected else { return }
            note(candidates: parameters.candidates, remote: false)
            call.handle.withLock { $0.iceCandidates = gathered }
            note(.signalingState, "have-local-offer")
            if options.encryptsMedia { srtpKey = SRTPKeyingMaterial.random() }
            let key = srtpKey.map(SignalingMessage.SRTPKey.init)
            do throws(PreflightError) {
                if call.role == .caller {
                    try await signaling.send(.invite(.init(ice: parameters, codecs: offeredCodecs, params: params, srtp: key)))
                } else if let callSid {
                    try await signaling.send(.accept(.init(callSid: callSid, ice: parameters, codecs: offeredCodecs, srtp: key)))
                    callOpen = true
                }
                offered = true
            } catch {
                await fail(error)
            }
        case .connected(let pair, _):
            pathSelected(pair)
            note(selected: pair)
            call.handle.withLock { $0.selectedPair = pair }
            // The caller connects when the edge answered and media flows; the callee, whose
            // table has no ringing before it, rings and connects at once.
            let transition = feed(call.role == .caller ? .answered : .ringing)
            if transition.stateChanges.contains(.connected) { startMedia(group: &group) }
        case .disconnected(let error, _):
            networks.lost(now: Self.nowMilliseconds())
            interrupt(.media, error)
        case .reconnected(let pair, _):
            pathSelected(pair)
            note(selected: pair)
            call.handle.withLock { $0.selectedPair = pair }
            recover(.media)
        case .failed(let error):
            await fail(error)
        case .timeline(let entry):
            note(entry)
        case .pairChanged(let pair, _):
            pathSelected(pair)
            note(selected: pair)
            call.handle.withLock { $0.selectedPair = pair }
        case .candidateGathered(let candidate):
            await trickle([candidate])
        case .serverFailed, .channelBindRefused:
            break
        }
    }

    /// A message of this call from the edge.
    mutating func handle(_ message: SignalingMessage, group: inout TaskGroup<Void>) async {
        switch message {
        case .ringing(let sid):
            named(sid)
            if call.role == .caller { feed(.ringing) }
            await trickle([])
            await flushInsights()
            await hangUpIfPending()
        case .answer(let answer):
            named(answer.callSid)
            callOpen = true
            await trickle([])
            // "Server returns an answer to the Client's offer": stamped now, not when ICE connects.
            // On the ICE agent's clock, as the ICE states it stamps next (no skew between the two).
            if call.role == .caller {
                note(.connection, CallInsightsEvent.acceptedByRemote.rawValue, at: Int64((Double(startTime) + ice.seconds(.now) * 1000).rounded(.down)))
            }
            note(candidates: answer.ice.candidates, remote: true)
            note(.signalingState, "stable")
            await flushInsights()
            if await hangUpIfPending() { return }
            do throws(PreflightError) {
                media.use(try AudioCodecs.answered(codec: answer.codec, payloadType: answer.payloadType, offered: offeredCodecs))
                if let srtpKey, let remote = answer.srtp {
                    try media.encrypt(sending: srtpKey, receiving: try remote.material())
                }
                try ice.connect(remote: answer.ice)
            } catch {
                await fail(error)
            }
        case .hangup(let hangup):
            guard callSid == nil || hangup.callSid == callSid else { return }
            callOpen = false
            hangupPending = false
            if let code = hangup.code {
                feed(.failed(PreflightError(
                    code: PreflightError.Code(code), message: "call: the edge hung up: \(hangup.reason ?? "no reason given")")))
            } else {
                feed(.remoteHangup)
            }
        case .message(let body):
            call.emit(.messageReceived(body.message))
        case .messageStatus(let status):
            if let code = status.code {
                call.emit(.messageFailed(
                    id: status.id, error: PreflightError(code: PreflightError.Code(code), message: status.reason ?? "call message not delivered")))
            } else {
                call.emit(.messageSent(id: status.id))
            }
        case .error(let info):
            guard info.callSid == nil || info.callSid == callSid else { return }
            callOpen = false
            hangupPending = false
            feed(.failed(info.preflightError))
        default:
            break
        }
    }

    mutating func named(_ sid: String) {
        guard callSid == nil else { return }
        callSid = sid
        callOpen = true
        call.update(sid: sid)
    }

    /// `disconnect()`: the call ends at once for the app; the edge is told as soon as it named
    /// the call (an invite in flight has no sid yet: the hangup waits for it, at most 2 s).
    mutating func disconnect(group: inout TaskGroup<Void>) async {
        guard !feed(.localDisconnect).isIgnored else { return }
        if callSid == nil, offered, call.role == .caller {
            hangupPending = true
            group.post(.hangupDeadline, to: inputs, after: .seconds(2), on: options.clock)
        }
    }

    /// Sends the hangup `disconnect()` left pending once the call has a sid.
    @discardableResult
    mutating func hangUpIfPending() async -> Bool {
        guard hangupPending, let callSid else { return false }
        hangupPending = false
        callOpen = false
        await signaling.hangup(callSid: callSid, reason: "disconnected")
        return true
    }

    /// A fatal error: before connected a failure to connect, after it a disconnect with it.
    mutating func fail(_ error: PreflightError) async {
        guard !feed(.failed(error)).isIgnored else { return }
        // The Insights `error` (and what else is queued) goes before the hangup: a test
        // application's session ends with its call.
        await flushInsights()
        if let callSid, callOpen {
            callOpen = false
            try? await signaling.send(.hangup(.init(callSid: callSid, reason: error.message, code: error.code.rawValue)))
        }
    }

    /// Signaling and media recover independently; the call reports one reconnecting for as long
    /// as either is lost, each loss with its own error when it starts one.
    mutating func interrupt(_ part: Interruption, _ error: PreflightError) {
        let wasWhole = interrupted.isEmpty
        guard call.state == .connected || call.state == .reconnecting else { return }
        interrupted.insert(part)
        if wasWhole { feed(.connectionInterrupted(error)) }
    }

    mutating func recover(_ part: Interruption) {
        guard interrupted.remove(part) != nil, interrupted.isEmpty else { return }
        feed(.reconnected)
    }

    // MARK: Media

    /// The call connected: an RTCP report at once, the audio, and the once-a-second samples.
    mutating func startMedia(group: inout TaskGroup<Void>) {
        guard !mediaStarted else { return }
        mediaStarted = true
        media.sendReport(at: .now)
        let media = media
        let codec = media.codec
        var source = CallAudioSource(switchboard: audio, codec: codec)
        if !options.fakeMicInput, let input = options.audioInput { source.input = ExternalAudioMediaSource(input: input, codec: codec) }
        group.addTask { await media.send(source) }
        group.post(.sampleTick, to: inputs, every: .seconds(1), on: options.clock)
    }

    /// The second's sample, its warnings (constant input level not while muted, constant
    /// output level not while on hold), and the second's RTCP report.
    mutating func takeSample() {
        guard call.state == .connected || call.state == .reconnecting else { return }
        let now = ContinuousClock.now
        let sample = media.takeSample(at: now, codec: media.codec.format.name)
        call.emit(.sample(sample))
        let update = warnings.ingest(sample, muted: call.isMuted, onHold: call.isOnHold)
        note(update)
        if update.didChange { call.emit(.qualityWarnings(current: update.current, previous: update.previous)) }
        if media.isSending { media.sendReport(at: now) }
    }
}
