import Foundation
import Logging
import NIOCore
@_spi(Testing) import PreflightCore
import PreflightNIO
import Synchronization

/// Set when ICE connected: the check task switches from retransmissions to consent checks.
final class CheckFlag: Sendable {
    let connected = Atomic<Bool>(false)
}

enum TestRunApplication {
    static let recordPlayback = "record-playback"
}

extension TestRun {
    /// The run's state machine. Owned by one task; helper tasks only post ``TestRun/Event``s.
    struct Loop {
        let run: TestRun
        let socket: MediaSocket
        let signaling: SignalingConnection
        let events: AsyncStream<Event>.Continuation
        let clock = ContinuousClock()
        let origin: ContinuousClock.Instant
        /// Wall-clock milliseconds at ``origin``: samples and timings are stamped from the
        /// monotonic clock plus this, so they never jump with the system clock.
        let originWall: Double

        enum Phase {
            case connecting, awaitingWelcome, awaitingAnswer, checking, media, ended
        }

        var phase = Phase.connecting
        var callSid: String?
        var callOpen = false
        var edgeName = ""
        var application: String?
        var remoteICE: ICEParameters?
        var remotes: [(candidate: ICECandidate, address: SocketAddress)] = []
        var pendingChecks: [STUNTransactionID: Int] = [:]
        var peer: SocketAddress?
        var localCandidates: [ICECandidateStats] = []
        var selectedPair: ICECandidatePairStats?
        let localUfrag: String
        let localPassword: String
        let ssrc: UInt32
        let firstSequence: UInt16
        var meter = CallMeter()
        var warnings = WarningsEngine()
        var samples: [StatsSample] = []
        var codec = ""
        var lastFromEdge: ContinuousClock.Instant?
        var checksStarted: ContinuousClock.Instant?
        var iceConnected: ContinuousClock.Instant?
        var peerConnected = false
        var timing = NetworkTiming()
        var echoRTTs = 0
        var mediaStarted = false
        var lastSample: ContinuousClock.Instant?
        let checksFlag = CheckFlag()

        init(run: TestRun, socket: MediaSocket, signaling: SignalingConnection, events: AsyncStream<Event>.Continuation) {
            self.run = run
            self.socket = socket
            self.signaling = signaling
            self.events = events
            origin = clock.now
            originWall = Double(run.startTime)
            var random = SystemRandomNumberGenerator()
            (localUfrag, localPassword) = ICEParameters.randomCredentials()
            ssrc = random.next()
            firstSequence = random.next()
            meter.countsReorderedAsLost = run.options.countsReorderedAsLost
        }

        // MARK: Clock

        func wallMilliseconds(_ instant: ContinuousClock.Instant) -> Double {
            originWall + (instant - origin).inSeconds * 1000
        }

        func wallTime(_ instant: ContinuousClock.Instant) -> Int64 {
            Int64(wallMilliseconds(instant).rounded(.down))
        }

        func microseconds(_ instant: ContinuousClock.Instant) -> UInt64 {
            UInt64(max(0, (instant - origin).inSeconds * 1e6))
        }

        func ntp(_ instant: ContinuousClock.Instant) -> NTPTimestamp {
            NTPTimestamp(unixTime: wallMilliseconds(instant) / 1000)
        }

        // MARK: Helpers

        func after(_ duration: Duration, _ event: Event, in group: inout TaskGroup<Void>) {
            let events = events
            group.addTask {
                try? await Task.sleep(for: duration)
                if !Task.isCancelled { events.yield(event) }
            }
        }

        func every(_ interval: Duration, _ event: Event, in group: inout TaskGroup<Void>) {
            let events = events
            group.addTask {
                let clock = ContinuousClock()
                var next = clock.now
                while true {
                    next += interval
                    do { try await Task.sleep(until: next, clock: clock) } catch { return }
                    events.yield(event)
                }
            }
        }

        func publish() {
            let report = partialReport()
            run.test.update { $0 = report }
        }

        func partialReport() -> PreflightReport {
            var report = PreflightReport(
                callSid: callSid ?? "", edge: edgeName, selectedEdge: run.options.selectedEdge,
                iceCandidates: localCandidates + remotes.map { Self.stats(of: $0.candidate, isRemote: true) },
                selectedIceCandidatePair: selectedPair, warnings: warnings.raisedRecords,
                warningsCleared: warnings.clearedRecords, networkTiming: timing,
                isTurnRequired: selectedPair.map(\.usesRelay))
            report.setSamples(samples)
            report.application = application
            return report
        }

        // MARK: The loop

        mutating func run(_ stream: AsyncStream<Event>, group: inout TaskGroup<Void>) async throws(PreflightError) -> PreflightReport {
            for await event in stream {
                if Task.isCancelled { break }
                if let report = try await handle(event, group: &group) {
                    return report
                }
            }
            throw PreflightError(code: .cancelled, message: "preflight test cancelled")
        }

        /// Handles one event; returns the final report when the test is complete.
        mutating func handle(_ event: Event, group: inout TaskGroup<Void>) async throws(PreflightError) -> PreflightReport? {
            switch event {
            case .signaling(.connected):
                try await signaling.send(.hello(token: run.options.accessToken, client: "preflight-swift/\(PreflightVersion.current)"))
                phase = .awaitingWelcome
            case .signaling(.message(let message)):
                return try await handle(message, group: &group)
            case .signaling(.closed(let error)):
                callOpen = false
                throw error ?? PreflightError(code: .signalingDisconnected, message: "signaling: the connection to the edge closed")
            case .datagram(let datagram):
                try handle(datagram)
                if phase == .media, !mediaStarted {
                    mediaStarted = true
                    checksFlag.connected.store(true, ordering: .relaxed)
                    startMedia(in: &group)
                    every(.seconds(1), .sampleTick, in: &group)
                    every(.milliseconds(250), .watchdogTick, in: &group)
                    if application == TestRunApplication.recordPlayback {
                        after(run.options.maximumDuration, .deadline(.maximum), in: &group)
                    } else {
                        after(run.options.duration, .deadline(.testEnd), in: &group)
                    }
                }
            case .checkSent(let transaction, let remote):
                pendingChecks[transaction] = remote
                if checksStarted == nil { checksStarted = clock.now }
            case .mediaSent(let bytes, let level):
                meter.recordSent(bytes: bytes, audioLevel: level)
            case .sampleTick:
                takeSample()
            case .watchdogTick:
                if let last = lastFromEdge, clock.now - last > run.options.mediaTimeout {
                    throw PreflightError(
                        code: .mediaConnectionFailed,
                        message: "media: nothing received from the edge for \(run.options.mediaTimeout)")
                }
            case .deadline(.signaling):
                if [.connecting, .awaitingWelcome, .awaitingAnswer].contains(phase) {
                    throw PreflightError(
                        code: .signalingTimeout,
                        message: "signaling: no answer from \(run.options.edgeURL) within \(run.options.signalingTimeout)")
                }
            case .deadline(.ice):
                if phase == .checking {
                    throw PreflightError(
                        code: .mediaConnectionFailed,
                        message: "ICE: no connectivity check to \(remotes.map { "\($0.address)" }) succeeded within \(run.options.iceTimeout)")
                }
            case .deadline(.testEnd):
                takeFinalSample()
                return finalReport()
            case .deadline(.maximum):
                throw PreflightError(
                    code: .connectionError,
                    message: "call: the edge did not end the \(application ?? "test") call within \(run.options.maximumDuration)")
            }
            return nil
        }

        mutating func handle(_ message: SignalingMessage, group: inout TaskGroup<Void>) async throws(PreflightError) -> PreflightReport? {
            switch (message, phase) {
            case (.welcome(let welcome), .awaitingWelcome):
                edgeName = welcome.edge
                localCandidates = Self.hostCandidates(port: socket.localAddress?.port ?? 0, edgeURL: run.options.edgeURL)
                let invite = SignalingMessage.Invite(
                    ice: ICEParameters(
                        ufrag: localUfrag, pwd: localPassword,
                        candidates: localCandidates.enumerated().map { index, stats in
                            ICECandidate(
                                foundation: "\(index + 1)", priority: UInt32(clamping: stats.priority), address: stats.ip,
                                port: UInt16(clamping: stats.port), type: stats.candidateType)
                        }),
                    codecs: run.options.preferredAudioCodecs)
                try await signaling.send(.invite(invite))
                phase = .awaitingAnswer
                publish()
            case (.ringing(let sid), .awaitingAnswer):
                callSid = sid
                callOpen = true
                publish()
            case (.answer(let answer), .awaitingAnswer):
                callSid = answer.callSid
                callOpen = true
                codec = answer.codec
                application = answer.application
                remoteICE = answer.ice
                let now = clock.now
                timing.signaling = TimingMeasurement(startTime: run.startTime, endTime: wallTime(now))
                remotes = answer.ice.candidates.compactMap { candidate in
                    guard candidate.transport == "udp",
                        let address = try? SocketAddress(ipAddress: candidate.address, port: Int(candidate.port)),
                        address.protocol == .inet
                    else { return nil }
                    return (candidate, address)
                }
                publish()
                guard !remotes.isEmpty else {
                    throw PreflightError(
                        code: .mediaConnectionFailed,
                        message: "ICE: the edge offered no IPv4 UDP candidate (\(answer.ice.candidates.map(\.sdpAttribute)))")
                }
                phase = .checking
                startChecks(answer.ice, in: &group)
                after(run.options.iceTimeout, .deadline(.ice), in: &group)
            case (.hangup(let hangup), _):
                callOpen = false
                if let code = hangup.code {
                    throw PreflightError(
                        code: PreflightError.Code(code),
                        message: "call: the edge hung up: \(hangup.reason ?? "no reason given")")
                }
                guard phase == .media else {
                    throw PreflightError(
                        code: .connectionError, message: "call: the edge hung up before media flowed: \(hangup.reason ?? "")")
                }
                takeFinalSample()
                return finalReport()
            case (.error(let info), _):
                callOpen = false
                throw info.preflightError
            default:
                throw PreflightError(
                    code: .malformed, message: "signaling: unexpected \"\(message.type)\" from the edge in phase \(phase)")
            }
            return nil
        }

        // MARK: ICE

        /// Sends Binding checks to every remote candidate with RFC 8445-style retransmissions
        /// (50 ms doubling to 500 ms) until cancelled; the loop matches the responses.
        func startChecks(_ remote: ICEParameters, in group: inout TaskGroup<Void>) {
            let key = STUNIntegrityKey(Array(remote.pwd.utf8))
            let username = "\(remote.ufrag):\(localUfrag)"
            let priority = ICECandidate.priority(typePreference: 110, localPreference: 65535, component: 1)
            let targets = remotes.map(\.address)
            let events = events
            let socket = socket
            var random = SystemRandomNumberGenerator()
            let tieBreaker: UInt64 = random.next()
            let flag = checksFlag
            group.addTask {
                var interval = Duration.milliseconds(50)
                while !Task.isCancelled {
                    // Once connected, a check every 2 s keeps consent fresh (RFC 7675 asks for ~5 s).
                    if flag.connected.load(ordering: .relaxed) { interval = .seconds(2) }
                    for (index, target) in targets.enumerated() {
                        let request = STUNMessage(
                            type: STUNMessageType(method: .binding, class: .request), transactionID: .random(),
                            attributes: [.username(username), .priority(priority), .iceControlling(tieBreaker), .useCandidate])
                        guard let bytes = try? request.encoded(integrityKey: key, fingerprint: true) else { continue }
                        events.yield(.checkSent(request.transactionID, remote: index))
                        socket.send(bytes, to: target)
                    }
                    do { try await Task.sleep(for: interval) } catch { return }
                    if !flag.connected.load(ordering: .relaxed) { interval = min(interval * 2, .milliseconds(500)) }
                }
            }
        }

        mutating func handleSTUN(_ datagram: Datagram) throws(PreflightError) {
            guard phase == .checking || phase == .media, let remoteICE,
                let message = try? STUNMessage(decoding: Array(datagram.data.readableBytesView)),
                let remote = pendingChecks[message.transactionID]
            else { return }
            if message.type.messageClass == .errorResponse {
                throw PreflightError(
                    code: .mediaConnectionFailed,
                    message: "ICE: the edge refused the connectivity check (\(message.errorCode.map { "\($0.code) \($0.reason)" } ?? "error"))")
            }
            guard message.type.messageClass == .successResponse, phase == .checking,
                (try? message.verifyIntegrity(key: STUNIntegrityKey(Array(remoteICE.pwd.utf8)))) != nil,
                (try? message.verifyFingerprint()) != nil
            else { return }
            let now = datagram.arrival
            phase = .media
            peer = remotes[remote].address
            iceConnected = now
            lastFromEdge = now
            let start = checksStarted ?? now
            timing.iceConnection = TimingMeasurement(startTime: wallTime(start), endTime: wallTime(now))
            // The local side of the pair: the host candidate the edge saw, else a peer-reflexive one.
            let mapped = message.xorMappedAddress
            var local = localCandidates.first { $0.ip == mapped?.host && $0.port == Int(mapped?.port ?? 0) }
            if local == nil, let mapped {
                let prflx = ICECandidateStats(
                    candidateType: .peerReflexive,
                    priority: Int(ICECandidate.priority(typePreference: 110, localPreference: 65535, component: 1)),
                    networkType: Self.networkType(mapped.host), ip: mapped.host, isRemote: false, port: Int(mapped.port))
                localCandidates.append(prflx)
                local = prflx
            }
            if let local {
                selectedPair = ICECandidatePairStats(
                    localCandidate: local, remoteCandidate: Self.stats(of: remotes[remote].candidate, isRemote: true))
            }
            publish()
            run.test.emit(.connected)
        }

        // MARK: Media

        func startMedia(in group: inout TaskGroup<Void>) {
            guard let peer else { return }
            let events = events
            let socket = socket
            let ssrc = ssrc
            let firstSequence = firstSequence
            let origin = origin
            group.addTask {
                let signal = TestSignal()
                let clock = ContinuousClock()
                let start = clock.now
                var random = SystemRandomNumberGenerator()
                let firstTimestamp: UInt32 = random.next()
                var frame = 0
                while !Task.isCancelled {
                    do { try await Task.sleep(until: start + .milliseconds(20) * frame, clock: clock) } catch { return }
                    let pcm = signal.frame(frame)
                    let sendTime = UInt64(max(0, (clock.now - origin).inSeconds * 1e6))
                    let packet = RTPPacket(
                        marker: frame == 0, payloadType: MuLaw.payloadType, sequenceNumber: firstSequence &+ UInt16(truncatingIfNeeded: frame),
                        timestamp: firstTimestamp &+ UInt32(truncatingIfNeeded: frame * 160), ssrc: ssrc,
                        headerExtension: MediaExtension.clientExtension(sendMicroseconds: sendTime),
                        payload: MuLaw.encode(pcm)[...])
                    if let bytes = try? packet.encoded() {
                        socket.send(bytes, to: peer)
                        events.yield(.mediaSent(bytes: bytes.count, level: AudioLevel.peak(of: pcm)))
                    }
                    frame += 1
                }
            }
        }

        mutating func handle(_ datagram: Datagram) throws(PreflightError) {
            let kind = datagram.data.withUnsafeReadableBytes { PacketKind.classify($0) }
            switch kind {
            case .stun:
                try handleSTUN(datagram)
                if phase == .media, iceConnected == datagram.arrival {
                    // Media starts with the pair: an RTCP report at once (its answer proves the
                    // path both ways), then the paced audio and the once-a-second machinery.
                    sendReport(at: datagram.arrival)
                }
            case .rtp:
                guard phase == .media, datagram.source == peer else { return }
                lastFromEdge = datagram.arrival
                markPeerConnected(datagram.arrival)
                receiveRTP(datagram)
            case .rtcp:
                guard phase == .media, datagram.source == peer else { return }
                lastFromEdge = datagram.arrival
                markPeerConnected(datagram.arrival)
                receiveRTCP(datagram)
            default:
                return
            }
        }

        mutating func markPeerConnected(_ instant: ContinuousClock.Instant) {
            guard !peerConnected else { return }
            peerConnected = true
            let start = checksStarted ?? instant
            timing.peerConnection = TimingMeasurement(startTime: wallTime(start), endTime: wallTime(instant))
            publish()
        }

        mutating func receiveRTP(_ datagram: Datagram) {
            let arrival = datagram.arrival
            let arrivalMicroseconds = microseconds(arrival)
            datagram.data.withUnsafeReadableBytes { bytes in
                guard let header = try? RTPHeader(parsing: bytes) else { return }
                let payload = UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange])
                let level = header.payloadType == MuLaw.payloadType ? AudioLevel.peak(ofMuLaw: payload) : 0
                var senderTime = header.timestamp
                var clockRate = MuLaw.clockRate
                if let echo = MediaExtension.echoReport(header, in: bytes) {
                    let roundTrip = Double(arrivalMicroseconds) - Double(echo.clientSendMicroseconds) - Double(echo.holdMicroseconds)
                    meter.recordRTT(roundTrip / 1000)
                    echoRTTs += 1
                    meter.recordUplink(echo.uplink)
                    senderTime = UInt32(truncatingIfNeeded: echo.edgeSendMicroseconds)
                    clockRate = MediaExtension.sendTimeClockRate
                } else if let edgeSend = MediaExtension.edgeSendTime(header, in: bytes) {
                    senderTime = UInt32(truncatingIfNeeded: edgeSend)
                    clockRate = MediaExtension.sendTimeClockRate
                }
                meter.recordReceived(
                    ssrc: header.ssrc, sequenceNumber: header.sequenceNumber, senderTime: senderTime, clockRate: clockRate,
                    arrival: (arrival - origin).inSeconds, bytes: bytes.count, audioLevel: level)
            }
        }

        mutating func receiveRTCP(_ datagram: Datagram) {
            guard let compound = try? RTCPCompoundPacket(decoding: Array(datagram.data.readableBytesView)) else { return }
            let arrival = ntp(datagram.arrival)
            for packet in compound.packets {
                let blocks: [RTCPReportBlock]
                switch packet {
                case .senderReport(let report): blocks = report.reportBlocks
                case .receiverReport(let report): blocks = report.reportBlocks
                default: continue
                }
                for block in blocks where block.ssrc == ssrc {
                    // Echoes measure RTT per packet; RTCP's is the measure when nothing is echoed.
                    if echoRTTs == 0, let rtt = block.roundTripTime(arrival: arrival) { meter.recordRTT(rtt) }
                    let expected = Int(block.extendedHighestSequenceNumber) - Int(firstSequence) + 1
                    guard expected > 0 else { continue }
                    meter.recordUplink(UplinkReport(
                        expected: UInt32(clamping: expected),
                        received: UInt32(clamping: max(0, expected - Int(block.cumulativeLost))),
                        jitterMicroseconds: UInt32(clamping: Int(block.interarrivalJitter) * 1_000_000 / MuLaw.clockRate)))
                }
            }
        }

        /// Sends an RTCP sender report (with a report block on the downlink once it exists) and SDES.
        mutating func sendReport(at instant: ContinuousClock.Instant) {
            guard let peer else { return }
            var blocks: [RTCPReportBlock] = []
            let downlink = meter.downlink
            if downlink.expected > 0 {
                blocks.append(RTCPReportBlock(
                    ssrc: 0, cumulativeLost: Int32(clamping: downlink.lost),
                    extendedHighestSequenceNumber: downlink.extendedHighestSequenceNumber,
                    interarrivalJitter: UInt32(clamping: Int(downlink.jitterMilliseconds * Double(MuLaw.clockRate) / 1000))))
            }
            let report = RTCPSenderReport(
                ssrc: ssrc, ntpTimestamp: ntp(instant), rtpTimestamp: 0,
                packetCount: UInt32(truncatingIfNeeded: meter.packetsSent), octetCount: UInt32(truncatingIfNeeded: meter.bytesSent),
                reportBlocks: blocks)
            let compound = RTCPCompoundPacket([.senderReport(report), .sourceDescription(.cname("preflight-\(localUfrag)", ssrc: ssrc))])
            if let bytes = try? compound.encoded() { socket.send(bytes, to: peer) }
        }

        mutating func takeSample() {
            guard phase == .media else { return }
            let now = clock.now
            lastSample = now
            let sample = meter.takeSample(timestamp: wallMilliseconds(now), codec: codec)
            samples.append(sample)
            let update = warnings.ingest(sample)
            publish()
            run.test.emit(.sample(sample))
            if update.didChange {
                run.test.emit(.qualityWarnings(current: update.current, previous: update.previous))
            }
            sendReport(at: now)
        }

        /// The closing sample, unless a tick just took one (within half a second): one sample a second.
        mutating func takeFinalSample() {
            if let last = lastSample, clock.now - last < .milliseconds(500) { return }
            takeSample()
        }

        mutating func finalReport() -> PreflightReport {
            phase = .ended
            return partialReport()
        }

        // MARK: Candidates

        static func hostCandidates(port: Int, edgeURL: String) -> [ICECandidateStats] {
            let loopbackEdge = edgeURL.contains("://127.") || edgeURL.contains("://localhost")
            var addresses: [String] = []
            if let devices = try? System.enumerateDevices() {
                for device in devices {
                    guard let address = device.address, address.protocol == .inet, let ip = address.ipAddress else { continue }
                    // A loopback edge is reached from loopback only; any other edge from the other interfaces.
                    if ip.hasPrefix("127.") == loopbackEdge, !addresses.contains(ip) {
                        addresses.append(ip)
                    }
                }
            }
            if addresses.isEmpty { addresses = [loopbackEdge ? "127.0.0.1" : "0.0.0.0"] }
            return addresses.enumerated().map { index, ip in
                ICECandidateStats(
                    candidateType: .host, networkId: index + 1,
                    priority: Int(ICECandidate.priority(typePreference: 126, localPreference: 65535 - index, component: 1)),
                    networkType: networkType(ip), ip: ip, isRemote: false, port: port)
            }
        }

        static func networkType(_ ip: String) -> String {
            ip.hasPrefix("127.") || ip == "::1" ? "Loopback" : "Unknown"
        }

        static func stats(of candidate: ICECandidate, isRemote: Bool) -> ICECandidateStats {
            ICECandidateStats(
                candidateType: candidate.type, protocol: candidate.transport, priority: Int(candidate.priority),
                networkType: networkType(candidate.address), relatedAddress: candidate.relatedAddress ?? "",
                ip: candidate.address, tcpType: candidate.tcpType ?? "", isRemote: isRemote,
                relatedPort: Int(candidate.relatedPort ?? 0), port: Int(candidate.port))
        }

    }
}
