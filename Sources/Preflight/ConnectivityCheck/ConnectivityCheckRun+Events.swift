import Logging
internal import NIOCore
internal import PreflightCore
internal import PreflightNIO

extension ConnectivityCheckRun {
    /// Handles one input.
    mutating func handle(_ input: Input, group: inout TaskGroup<Void>) async throws(PreflightError) {
        switch input {
        case .session(let session):
            try await handle(session, group: &group)
        case .videoStarted(let error):
            if let error {
                cameraFailed(error)
            }
            startMedia(group: &group)
        case .captureTick:
            captureTick()
        case .reportTick:
            guard mediaEnded == nil else { return }
            audioOut.sendReport(at: .now)
            videoOut.sendReport(at: .now)
        case .iceTimedOut:
            guard connected.count < 2 else { return }
            throw PreflightError(
                code: .mediaConnectionFailed,
                message: "ICE: the \(connected.contains(.publish) ? "subscribe" : "publish") connection to the edge did not connect within \(options.iceTimeout)")
        case .durationReached:
            try durationReached(group: &group)
        case .drained:
            if result.state == .mediaPublished {
                reach(.completed)
            } else if mediaStarted != nil {
                result.errors.append(ReportError(PreflightError(
                    code: .subscribeMediaMissing, message: "connectivity check: media was published but none came back on the subscribe connection")))
            }
            done = true
        }
    }

    /// The edge welcomed the session: both connections gather with its servers.
    mutating func welcomed(_ welcome: SignalingMessage.Welcome, group: inout TaskGroup<Void>) {
        result.signallingReport.isConnected = true
        reach(.signallingConnected)
        let servers = welcome.iceServers + options.iceServers
        publishICE.gather(servers: servers)
        subscribeICE.gather(servers: servers)
    }

    mutating func receive(_ datagram: Datagram, on leg: MediaLeg) {
        if leg == .subscribe {
            receiveSubscribed(datagram)
        } else {
            // The edge's RTCP answers: each session reads the report block on its own stream.
            audioOut.receive(datagram)
            videoOut.receive(datagram)
        }
    }

    /// Records a state reached and tells the subscribers.
    mutating func reach(_ state: ConnectivityCheckState) {
        guard state > result.state else { return }
        result.state = state
        diagnostics.emit(state)
    }

    mutating func handle(_ message: SignalingMessage, group: inout TaskGroup<Void>) throws(PreflightError) {
        switch message {
        case .answer:
            break
        case .hangup(let hangup):
            callSid = nil
            throw PreflightError(
                code: PreflightError.Code(hangup.code ?? PreflightError.Code.connectionError.rawValue),
                message: "connectivity check: the edge ended it: \(hangup.reason ?? "no reason given")")
        case .error(let info):
            throw info.preflightError
        default:
            throw PreflightError(code: .malformed, message: "signaling: unexpected \"\(message.type)\" from the edge during a connectivity check")
        }
    }

    mutating func handle(_ event: ICEAgent.Event, on leg: MediaLeg, group: inout TaskGroup<Void>) throws(PreflightError) {
        switch event {
        case .gatheringComplete(let parameters, _):
            gathered[leg] = parameters
            guard let publish = gathered[.publish], let subscribe = gathered[.subscribe] else { return }
            let request = SignalingMessage.ConnectivityCheck(publish: publish, subscribe: subscribe, codecs: offeredCodecs)
            let signaling = signaling
            let inputs = inputs
            group.addTask {
                do throws(PreflightError) {
                    inputs.yield(.session(.answered(.success(try await signaling.connectivityCheck(request)))))
                } catch {
                    inputs.yield(.session(.answered(.failure(error))))
                }
            }
        case .connected(let pair, _), .reconnected(let pair, _), .pairChanged(let pair, _):
            if leg == .publish { networks.selected(pair, now: RunNetworks.now()) }
            if leg == .publish {
                result.mediaServerReport.isPublishICEConnected = true
                result.mediaServerReport.publishICECandidatePairSelected = pair
            } else {
                result.mediaServerReport.isSubscribeICEConnected = true
                result.mediaServerReport.subscribeICECandidatePairSelected = pair
            }
            guard case .connected = event else { return }
            connected.insert(leg)
            guard connected.count == 2 else { return }
            reach(.iceEstablished)
            let video = video
            let inputs = inputs
            group.addTask {
                do throws(PreflightError) {
                    try await video.start()
                    inputs.yield(.videoStarted(nil))
                } catch {
                    inputs.yield(.videoStarted(error))
                }
            }
        case .failed(let error):
            throw error
        case .disconnected(let error, _):
            if leg == .publish { networks.lost(now: RunNetworks.now()) }
            logger.info("connectivity check: ICE disconnected", metadata: ["leg": "\(leg)", "error": "\(error.message)"])
        case .timeline, .serverFailed, .channelBindRefused, .candidateGathered:
            break
        }
    }

    /// The host's networks changed (the ICE drivers already follow them): recorded for the
    /// result; the check ends with 70902 when none is left.
    mutating func networksChanged(_ change: NetworkChange) throws(PreflightError) {
        try networks.changed(change, now: RunNetworks.now())
    }

    /// The edge answered: the codec is set and both connections check against its candidates.
    mutating func answered(_ answer: SignalingMessage.Answer, group: inout TaskGroup<Void>) throws(PreflightError) {
        callSid = answer.callSid
        let codec = try AudioCodecs.answered(codec: answer.codec, payloadType: answer.payloadType, offered: offeredCodecs)
        audioOut.use(codec)
        audioIn.use(try AudioCodecs.answered(codec: answer.codec, payloadType: answer.payloadType, offered: offeredCodecs))
        result.codec = codec.format.name
        guard let subscribe = answer.subscribeIce else {
            throw PreflightError(code: .malformed, message: "connectivity check: the edge's answer has no subscribe connection")
        }
        try publishICE.connect(remote: answer.ice)
        try subscribeICE.connect(remote: subscribe)
        group.post(.iceTimedOut, to: inputs, after: options.iceTimeout + .seconds(1), on: clock)
    }

    /// The camera could not start: the check goes on with the test pattern.
    mutating func cameraFailed(_ error: PreflightError) {
        let name = video.name
        video.stop()
        result.deviceTestReport.camera = DeviceTestOutcome(tested: true, outcome: .failed, source: name, error: ReportError(error))
        result.errors.append(ReportError(error))
        video = TestPatternVideoSource()
    }

    /// Both connections are up and the video source started: audio and video go out on the
    /// publish connection, sender reports every second.
    mutating func startMedia(group: inout TaskGroup<Void>) {
        guard mediaStarted == nil, let packetizer = try? VideoTestPacketizer(bitrate: options.videoBitrate, frameRate: options.videoFrameRate)
        else { return }
        mediaStarted = clock.now
        let audioOut = audioOut
        let videoOut = videoOut
        let codec = audioOut.codec
        let video = video
        audioOut.sendReport(at: .now)
        videoOut.sendReport(at: .now)
        if let input = options.audioInput {
            group.addTask { await audioOut.send(ExternalAudioMediaSource(input: input, codec: codec)) }
        } else {
            group.addTask { await audioOut.send(AudioTestSource(codec: codec)) }
        }
        group.addTask { await videoOut.send(VideoTestSource(packetizer: packetizer, latestFrame: { video.latestVideoFrame() })) }
        group.post(.reportTick, to: inputs, every: .seconds(1), on: clock)
        group.post(.captureTick, to: inputs, every: .milliseconds(50), on: clock)
    }

    /// Media counts as captured once the video source has a picture; a camera that has none
    /// within 3 s failed, and the test pattern takes its place.
    mutating func captureTick() {
        guard result.state < .mediaCaptured, mediaStarted != nil else { return }
        if video.latestVideoFrame() != nil {
            reach(.mediaCaptured)
            return
        }
        captureWaits += 1
        if captureWaits == 60 {
            cameraFailed(PreflightError(code: .deviceFailed, message: "camera \(video.name): no frame within 3 s"))
        }
    }

    /// A datagram on the subscribe connection: the published media, back.
    mutating func receiveSubscribed(_ datagram: Datagram) {
        let payloadType = datagram.data.withUnsafeReadableBytes { bytes -> UInt8? in
            guard PacketKind.classify(bytes) == .rtp, let header = try? RTPHeader(parsing: bytes) else { return nil }
            return header.payloadType
        }
        guard let payloadType else { return }
        if payloadType == SignalingMessage.ConnectivityCheck.videoPayloadType {
            videoIn.receive(datagram)
        } else {
            audioIn.receive(datagram)
        }
        if result.state == .mediaCaptured { reach(.mediaPublished) }
    }

    /// The check's time is up: sending stops and what is in flight drains for 0.5 s.
    mutating func durationReached(group: inout TaskGroup<Void>) throws(PreflightError) {
        guard mediaStarted != nil else {
            throw PreflightError(
                code: .mediaConnectionFailed, message: "connectivity check: \(options.duration) passed in state \(result.state)")
        }
        mediaEnded = clock.now
        audioOut.stopSending()
        videoOut.stopSending()
        // A last sender report on each stream: the edge's answer, within the drain, brings the
        // uplink loss up to the last packet sent.
        audioOut.sendReport(at: .now)
        videoOut.sendReport(at: .now)
        group.post(.drained, to: inputs, after: .milliseconds(500), on: clock)
    }
}
