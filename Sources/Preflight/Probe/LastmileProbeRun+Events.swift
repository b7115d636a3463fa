import Logging
internal import NIOCore
internal import PreflightCore
internal import PreflightNIO
import Synchronization

extension LastmileProbeRun {
    /// Handles one input.
    mutating func handle(_ input: Input, group: inout TaskGroup<Void>) async throws(PreflightError) {
        switch input {
        case .session(let session):
            try await handle(session, group: &group)
        case .control:
            try control(group: &group)
        case .quality:
            rateQuality()
        case .iceTimedOut:
            if !connected {
                throw PreflightError(code: .mediaConnectionFailed, message: "ICE: media to the edge did not connect within \(options.iceTimeout)")
            }
        }
    }

    /// The edge welcomed the session: gathering starts with its servers.
    mutating func welcomed(_ welcome: SignalingMessage.Welcome, group: inout TaskGroup<Void>) {
        edgeName = welcome.edge
        phase = .gathering
        ice.gather(servers: welcome.iceServers + options.iceServers)
    }

    /// The edge answered the probe: checks start against its candidates.
    mutating func answered(_ answer: SignalingMessage.Answer, group: inout TaskGroup<Void>) throws(PreflightError) {
        callSid = answer.callSid
        phase = .checking
        try ice.connect(remote: answer.ice)
        group.post(.iceTimedOut, to: inputs, after: options.iceTimeout + .seconds(1), on: clock)
    }

    /// What the edge pushed.
    mutating func handle(_ message: SignalingMessage, group: inout TaskGroup<Void>) throws(PreflightError) {
        switch message {
        case .answer:
            // The probe's answer outran the wait: `probe(_:)` still returns it.
            break
        case .probeArrivals(let batch):
            guard let records = batch.arrivals, let direction = current, direction.way == .uplink else { return }
            let now = seconds()
            packetsInWindow += records.count
            let sendTimes = direction.state.withLock { $0.sendTimes }
            for record in records where Int(record.sequence) < sendTimes.count {
                direction.observe(
                    ProbeArrival(
                        sequence: record.sequence, sendTime: sendTimes[Int(record.sequence)],
                        arrivalTime: Double(record.arrivalMicroseconds) / 1e6, wireBytes: record.bytes + overhead),
                    at: now)
            }
            if batch.dropped > 0 { logger.info("the edge dropped uplink arrival records", metadata: ["dropped": "\(batch.dropped)"]) }
        case .hangup(let hangup):
            throw PreflightError(
                code: PreflightError.Code(hangup.code ?? PreflightError.Code.connectionError.rawValue),
                message: "probe: the edge ended the probe: \(hangup.reason ?? "no reason given")")
        case .error(let info):
            throw info.preflightError
        default:
            throw PreflightError(code: .malformed, message: "signaling: unexpected \"\(message.type)\" from the edge during a probe")
        }
    }

    /// What the ICE agent reported.
    mutating func handle(_ event: ICEAgent.Event, on leg: MediaLeg, group: inout TaskGroup<Void>) throws(PreflightError) {
        switch event {
        case .gatheringComplete(let parameters, _):
            let request = SignalingMessage.Probe(
                ice: parameters,
                expectedUplinkBitrate: config.probeUplink ? config.expectedUplinkBitrate : nil,
                expectedDownlinkBitrate: config.probeDownlink ? config.expectedDownlinkBitrate : nil)
            let signaling = signaling
            let inputs = inputs
            group.addTask {
                do throws(PreflightError) {
                    inputs.yield(.session(.answered(.success(try await signaling.probe(request)))))
                } catch {
                    inputs.yield(.session(.answered(.failure(error))))
                }
            }
            phase = .awaitingAnswer
        case .connected(let pair, _):
            networks.selected(pair, now: RunNetworks.now())
            connected = true
            let address = pair.remoteCandidate.ip
            overhead = ProbePacket.wireOverhead(ipv6: address.contains(":"))
            phase = .pinging
            pingStart = seconds()
        case .failed(let error):
            throw error
        case .pairChanged(let pair, _), .reconnected(let pair, _):
            networks.selected(pair, now: RunNetworks.now())
        case .disconnected:
            networks.lost(now: RunNetworks.now())
        case .timeline, .serverFailed, .channelBindRefused, .candidateGathered:
            break
        }
    }

    /// The host's networks changed (the ICE driver already follows them): recorded for the
    /// result; the probe ends with 70902 when none is left.
    mutating func networksChanged(_ change: NetworkChange) throws(PreflightError) {
        try networks.changed(change, now: RunNetworks.now())
    }

    /// A datagram from the edge: a downlink probe packet or a ping's echo.
    mutating func receive(_ datagram: Datagram, on leg: MediaLeg) {
        let arrival = seconds(datagram.arrival)
        let size = datagram.data.readableBytes
        datagram.data.withUnsafeReadableBytes { bytes in
            guard PacketKind.classify(bytes) == .rtp, let header = try? RTPHeader(parsing: bytes) else { return }
            packetsInWindow += 1
            if let (sequence, sent) = ProbePacket.decode(header, in: bytes) {
                guard let direction = current, direction.way == .downlink else { return }
                direction.observe(
                    ProbeArrival(sequence: sequence, sendTime: Double(sent) / 1e6, arrivalTime: arrival, wireBytes: size + overhead),
                    at: arrival)
            } else if let echo = MediaExtension.echoReport(header, in: bytes) {
                let rtt = (arrival * 1e6 - Double(echo.clientSendMicroseconds) - Double(echo.holdMicroseconds)) / 1000
                guard rtt >= 0 else { return }
                rtts.append(rtt)
                if phase == .pinging { quietRTTs.append(rtt) }
            }
        }
    }

    /// Sends one ping (a PCMU frame the edge echoes with its hold time).
    mutating func ping() {
        let now = seconds()
        let packet = RTPPacket(
            payloadType: MuLaw.payloadType, sequenceNumber: pingSequence, timestamp: UInt32(truncatingIfNeeded: Int(now * 8000)),
            ssrc: ssrc &+ 1, headerExtension: MediaExtension.clientExtension(sendMicroseconds: UInt64(max(0, now * 1e6))),
            payload: [UInt8](repeating: 0xFF, count: 20)[...])
        pingSequence &+= 1
        pingsSent += 1
        lastPing = now
        if let bytes = try? packet.encoded() { _ = ice.sendMedia(bytes) }
    }
}
