import Logging
internal import PreflightCore
internal import PreflightNIO

extension PreflightTestRun {
    /// Handles one input; sets ``completed`` when the test is complete.
    mutating func handle(_ input: Input, group: inout TaskGroup<Void>) async throws(PreflightError) {
        switch input {
        case .session(let session):
            try await handle(session, group: &group)
        case .sampleTick:
            // While draining nothing is sent: no more per-second samples.
            if mediaEnded == nil { takeSample() }
        case .testEnded:
            // A settled verdict and the maximum's timer may both end the test: once.
            guard mediaEnded == nil else { break }
            // The agent itself says whether the pair is silent now: its `reconnected` may still
            // wait behind this input (a busy machine delays the run, not the agent).
            if let since = disconnectedSince, ice.withAgent({ $0.disconnectedSince }) != nil {
                takeFinalSample()
                throw PreflightError(
                    code: .mediaConnectionFailed,
                    message: "ICE: the connection was lost \(wallTime(agentTime: since) - startTime) ms into the test and not restored before it ended"
                        + (disconnectedBecause.map { " (\($0))" } ?? ""))
            }
            // Stop sending, then let what is in flight arrive (reordered or late packets, and
            // the echoes carrying the edge's last view of the uplink) before the totals are
            // read: 1.5 × the largest RTT seen, 0.1 s to 2 s.
            mediaEnded = clock.now
            if isAdaptive, settlement == nil {
                settlement = judgeVerdict().0
            } else if options.continuesAfterSettling, settlement != nil {
                settlement?.continuedToSeconds = Double(samples.count)
            }
            media.stopSending()
            ice.stopWatchingLiveness()
            let drain = min(max(1.5 * media.meter.roundTrips.max, 100), 2000)
            group.post(.drained, to: inputs, after: .milliseconds(Int64(drain)), on: clock)
        case .drained:
            takeFinalSample()
            completed = finalReport()
        case .maximumDurationReached:
            throw PreflightError(
                code: .connectionError,
                message: "call: the edge did not end the \(application ?? "test") call within \(options.maximumDuration)")
        }
    }

    /// The edge welcomed the session: gathering starts with its servers.
    mutating func welcomed(_ welcome: SignalingMessage.Welcome, group: inout TaskGroup<Void>) {
        edgeName = welcome.edge
        phase = .gathering
        ice.gather(servers: welcome.iceServers + options.iceServers)
        publish()
    }

    // A preflight test does not resume its signaling session: a lost connection ends it.
    mutating func signalingClosed(_ error: PreflightError?) throws(PreflightError) {
        callOpen = false
        throw Self.closedError(error)
    }

    mutating func receive(_ datagram: Datagram, on leg: MediaLeg) {
        // The media session takes media on the event loop (`receiveMedia`); none comes here.
        media.receive(datagram)
    }

    mutating func mediaStarted(at instant: ContinuousClock.Instant, on leg: MediaLeg) {
        markPeerConnected(instant)
    }

    /// The edge answered the invite: ICE checks start against its candidates.
    mutating func answered(_ answer: SignalingMessage.Answer, group: inout TaskGroup<Void>) throws(PreflightError) {
        callSid = answer.callSid
        callOpen = true
        let audioCodec = try AudioCodecs.answered(codec: answer.codec, payloadType: answer.payloadType, offered: offeredCodecs)
        media.use(audioCodec)
        codec = audioCodec.format.name
        application = answer.application
        let now = clock.now
        timing.signaling = TimingMeasurement(startTime: startTime, endTime: wallTime(now))
        mark(.signalingState, "stable", at: now)
        phase = .checking
        checkingStarted = now
        try ice.connect(remote: answer.ice)
        publish()
    }

    /// What the edge pushed on its own.
    mutating func handle(_ message: SignalingMessage, group: inout TaskGroup<Void>) throws(PreflightError) {
        switch message {
        case .ringing(let sid) where phase != .connecting && phase != .gathering:
            // Ringing and the answer come by different ways (pushed, and the invite's response):
            // ringing may be handled after the answer, whose sid is the same.
            guard callSid == nil else { return }
            callSid = sid
            callOpen = true
            publish()
        case .answer:
            // The invite's answer, which outran the invite's wait: `invite(_:)` still returns it.
            return
        case .hangup(let hangup):
            callOpen = false
            if let code = hangup.code {
                throw PreflightError(code: PreflightError.Code(code), message: "call: the edge hung up: \(hangup.reason ?? "no reason given")")
            }
            guard phase == .media else {
                throw PreflightError(code: .connectionError, message: "call: the edge hung up before media flowed: \(hangup.reason ?? "")")
            }
            takeFinalSample()
            completed = finalReport()
        case .error(let info):
            callOpen = false
            throw info.preflightError
        default:
            throw PreflightError(code: .malformed, message: "signaling: unexpected \"\(message.type)\" from the edge in phase \(phase)")
        }
    }

    /// What the ICE agent reported.
    mutating func handle(_ event: ICEAgent.Event, on leg: MediaLeg, group: inout TaskGroup<Void>) throws(PreflightError) {
        switch event {
        case .timeline(let entry):
            timeline.append(entry)
            // The peer connection follows ICE, except that it connects when media arrives.
            if entry.group == .iceConnectionState {
                let peer: String? = switch entry.name {
                case "new": "new"
                case "checking": "connecting"
                case "disconnected": "disconnected"
                case "failed": "failed"
                default: nil
                }
                if let peer { timeline.append(ConnectionStateEvent(group: .peerConnectionState, name: peer, timestamp: entry.timestamp)) }
            }
        case .gatheringComplete(let parameters, _):
            let invite = SignalingMessage.Invite(ice: parameters, codecs: offeredCodecs, params: options.params)
            let signaling = signaling
            let inputs = inputs
            group.addTask {
                do throws(PreflightError) {
                    inputs.yield(.session(.answered(.success(try await signaling.invite(invite)))))
                } catch {
                    inputs.yield(.session(.answered(.failure(error))))
                }
            }
            mark(.signalingState, "have-local-offer")
            phase = .awaitingAnswer
            publish()
        case .connected(let pair, let at):
            selectedPair = pair
            networks.selected(pair, now: wallTime(agentTime: at))
            phase = .media
            let start = checkingStarted.map { wallTime($0) } ?? wallTime(agentTime: at)
            timing.iceConnection = TimingMeasurement(startTime: start, endTime: wallTime(agentTime: at))
            publish()
            test.emit(.connected)
            startMedia(in: &group)
        case .pairChanged(let pair, let at):
            selectedPair = pair
            networks.selected(pair, now: wallTime(agentTime: at))
            publish()
        case .reconnected(let pair, let at):
            selectedPair = pair
            networks.selected(pair, now: wallTime(agentTime: at))
            disconnectedSince = nil
            timeline.append(ConnectionStateEvent(group: .peerConnectionState, name: "connected", timestamp: wallTime(agentTime: at)))
            test.emit(.reconnected)
            publish()
        case .disconnected(let error, let at):
            disconnectedSince = at
            disconnectedBecause = error.message
            networks.lost(now: wallTime(agentTime: at))
            logger.info("ICE disconnected", metadata: ["after": "\(options.mediaTimeout)"])
            test.emit(.reconnecting(error))
            publish()
        case .failed(let error):
            throw error
        case .serverFailed, .channelBindRefused, .candidateGathered:
            break
        }
    }

    /// The host's networks changed (the ICE driver already follows them): recorded for the
    /// report; the test ends with 70902 when none is left.
    mutating func networksChanged(_ change: NetworkChange) throws(PreflightError) {
        try networks.changed(change, now: PreflightTest.nowMilliseconds())
        if !change.isInitial { publish() }
    }

    /// ICE selected a pair: an RTCP report at once (its answer proves the path both ways), then
    /// the paced audio and the once-a-second samples.
    mutating func startMedia(in group: inout TaskGroup<Void>) {
        media.sendReport(at: .now)
        let media = media
        let codec = media.codec
        if !options.fakeMicInput, let input = options.audioInput {
            group.addTask { await media.send(ExternalAudioMediaSource(input: input, codec: codec)) }
        } else {
            group.addTask { await media.send(AudioTestSource(codec: codec)) }
        }
        group.post(.sampleTick, to: inputs, every: .seconds(1), on: clock)
        startPathDiagnosis()
        if isAdaptive { ice.startLossProbes(count: Self.lossProbes, interval: Self.lossProbeInterval) }
        if application == TestApplication.recordPlayback.rawValue {
            group.post(.maximumDurationReached, to: inputs, after: options.maximumDuration, on: clock)
        } else {
            group.post(.testEnded, to: inputs, after: options.duration.maximum, on: clock)
        }
    }

    /// Starts probing the path to the edge's media address when the test diagnoses its path. A
    /// probing that cannot start (71001) is reported in the report's `pathDiagnosis`; the test
    /// goes on either way.
    mutating func startPathDiagnosis() {
        guard let path = options.pathDiagnosis, let pair = selectedPair, pathDiagnosis == nil else { return }
        do {
            pathDiagnosis = try PathDiagnosisRun(options: path, pair: pair, seconds: options.duration.maximum.inSeconds)
        } catch {
            logger.warning("path diagnosis not started", metadata: ["error": "\(error)"])
        }
    }

    /// The loss probes of an adaptive test: 100, one every 20 ms (50 a second, as the audio's
    /// packets) over its first 2 s, so that a clean path has the round trips a verdict needs by
    /// its second sample (docs/measurement.md, "Loss probes").
    static let lossProbes = 100
    static let lossProbeInterval = Duration.milliseconds(20)

    mutating func markPeerConnected(_ instant: ContinuousClock.Instant) {
        guard !peerConnected else { return }
        peerConnected = true
        mark(.peerConnectionState, "connected", at: instant)
        let start = checkingStarted.map { wallTime($0) } ?? wallTime(instant)
        timing.peerConnection = TimingMeasurement(startTime: start, endTime: wallTime(instant))
        publish()
    }
}
