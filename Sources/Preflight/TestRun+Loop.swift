import Foundation
import Logging
internal import NIOCore
@_spi(Testing) internal import PreflightCore
internal import PreflightNIO

enum TestRunApplication {
    static let recordPlayback = "record-playback"
}

extension TestRun {
    /// The run's state machine. Owned by one task; helper tasks only post ``TestRun/Event``s.
    struct Loop {
        let run: TestRun
        let socket: MediaSocket
        /// The IPv6 socket, when the host has IPv6.
        let socket6: MediaSocket?
        let signaling: SignalingConnection
        let events: AsyncStream<Event>.Continuation
        let clock = ContinuousClock()
        let origin: ContinuousClock.Instant
        /// Wall-clock milliseconds at ``origin``: samples and timings are stamped from the
        /// monotonic clock plus this, so they never jump with the system clock.
        let originWall: Double

        enum Phase {
            case connecting, awaitingWelcome, gathering, awaitingAnswer, checking, media, ended
        }

        var phase = Phase.connecting
        var callSid: String?
        var callOpen = false
        var edgeName = ""
        var application: String?
        var remoteICE: ICEParameters?
        var agent = ICEAgentState()
        let route = RouteBox()
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
        var iceConnected: ContinuousClock.Instant?
        var peerConnected = false
        var timing = NetworkTiming()
        var echoRTTs = 0
        var mediaStarted = false
        var lastSample: ContinuousClock.Instant?
        /// When the test's media ended: sending stops, and what is still in flight drains.
        var mediaEnded: ContinuousClock.Instant?

        init(
            run: TestRun, socket: MediaSocket, socket6: MediaSocket?, signaling: SignalingConnection,
            events: AsyncStream<Event>.Continuation
        ) {
            self.run = run
            self.socket = socket
            self.socket6 = socket6
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
                iceCandidates: agent.locals.map(\.stats) + agent.remotes.map(\.stats),
                selectedIceCandidatePair: selectedPair, warnings: warnings.raisedRecords,
                warningsCleared: warnings.clearedRecords, networkTiming: timing,
                isTurnRequired: selectedPair.map(\.usesRelay))
            report.setSamples(samples)
            // Totals from everything received, including what arrived after the last sample.
            if report.uplink != nil, let uplink = meter.uplinkTotals {
                report.uplink?.setTotals(expected: Int(uplink.expected), lost: max(0, Int(uplink.expected) - Int(uplink.received)))
            }
            if report.downlink != nil, meter.downlink.expected > 0 {
                report.downlink?.setTotals(expected: meter.downlink.expected, lost: meter.downlink.lost)
            }
            report.application = application
            report.timeline = agent.timeline
            report.iceCandidatePairs = agent.pairRecords
            report.iceCandidateErrors = agent.errors
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
                if let server = agent.udpServer(for: datagram.source) {
                    try await handleServer(server, datagram)
                } else {
                    try await inbound(datagram, path: .direct)
                }
                startMediaIfConnected(group: &group)
            case .datagram6(let datagram):
                if let server = agent.udpServer(for: datagram.source) {
                    try await handleServer(server, datagram, path: .direct6)
                } else {
                    try await inbound(datagram, path: .direct6)
                }
                startMediaIfConnected(group: &group)
            case .turnMessage(let server, let datagram):
                try await handleServer(server, datagram)
                startMediaIfConnected(group: &group)
            case .turnConnected(let server, let connection):
                turnConnected(server, connection)
            case .turnConnectFailed(let server, let error):
                try await turnFailed(server, error)
            case .turnClosed(let server):
                try await turnFailed(server, PreflightError(code: .mediaConnectionFailed, message: "TURN: the server closed the connection"))
            case .serverResolved(let server, let address):
                try await serverResolved(server, address, group: &group)
            case .iceTick:
                let now = clock.now
                if phase == .gathering || phase == .awaitingAnswer || phase == .checking || phase == .media {
                    try await retransmitGathering(now: now)
                }
                if phase == .checking || phase == .media { try pollChecks(now: now) }
            case .deadline(.gathering):
                try await finishGatheringIfDone(deadline: true)
            case .mediaSent(let bytes, let level):
                meter.recordSent(bytes: bytes, audioLevel: level)
            case .sampleTick:
                // While draining nothing is sent: no more per-second samples.
                if mediaEnded == nil { takeSample() }
            case .watchdogTick:
                try checkLiveness(now: clock.now)
            case .deadline(.signaling):
                if [.connecting, .awaitingWelcome].contains(phase) || (phase == .awaitingAnswer && !agent.gatheringComplete) {
                    throw PreflightError(
                        code: .signalingTimeout,
                        message: "signaling: no answer from \(run.options.edgeURL) within \(run.options.signalingTimeout)")
                }
            case .deadline(.ice):
                if phase == .checking {
                    mark(.iceConnectionState, "failed")
                    mark(.peerConnectionState, "failed")
                    throw iceFailure("no candidate pair was selected within the ICE timeout of \(run.options.iceTimeout)")
                }
            case .deadline(.testEnd):
                if let since = agent.disconnectedSince {
                    takeFinalSample()
                    throw PreflightError(
                        code: .mediaConnectionFailed,
                        message: "ICE: the connection was lost \(wallTime(since) - run.startTime) ms into the test and not restored before it ended")
                }
                // Stop sending, then let what is in flight arrive (reordered or late packets, and
                // the echoes carrying the edge's last view of the uplink) before the totals are
                // read: 1.5 × the largest RTT seen, 0.1 s to 2 s.
                mediaEnded = clock.now
                route.set(nil)
                let drain = min(max(1.5 * meter.roundTrips.max, 100), 2000)
                after(.milliseconds(Int64(drain)), .deadline(.drained), in: &group)
            case .deadline(.drained):
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
                phase = .gathering
                every(.milliseconds(10), .iceTick, in: &group)
                try await startGathering(welcome.iceServers + run.options.iceServers, group: &group)
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
                mark(.signalingState, "stable", at: now)
                try startChecks(answer.ice, in: &group)
                publish()
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

        // MARK: Media

        /// Once ICE selected a pair: an RTCP report at once (its answer proves the path both
        /// ways), then the paced audio and the once-a-second machinery.
        mutating func startMediaIfConnected(group: inout TaskGroup<Void>) {
            guard phase == .media, !mediaStarted, let connected = iceConnected else { return }
            mediaStarted = true
            sendReport(at: connected)
            startMedia(in: &group)
            every(.seconds(1), .sampleTick, in: &group)
            every(.milliseconds(250), .watchdogTick, in: &group)
            if application == TestRunApplication.recordPlayback {
                after(run.options.maximumDuration, .deadline(.maximum), in: &group)
            } else {
                after(run.options.duration, .deadline(.testEnd), in: &group)
            }
        }

        func startMedia(in group: inout TaskGroup<Void>) {
            let events = events
            let route = route
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
                    if let bytes = try? packet.encoded(), let current = route.current {
                        current.send(bytes)
                        events.yield(.mediaSent(bytes: bytes.count, level: AudioLevel.peak(of: pcm)))
                    }
                    frame += 1
                }
            }
        }

        /// A datagram from the edge's side, straight or unwrapped from a relay: check responses,
        /// and media on the selected pair.
        mutating func inbound(_ datagram: Datagram, path: ICEAgentState.Path) async throws(PreflightError) {
            let kind = datagram.data.withUnsafeReadableBytes { PacketKind.classify($0) }
            switch kind {
            case .stun:
                guard let message = try? STUNMessage(decoding: Array(datagram.data.readableBytesView)) else { return }
                try await handleCheckResponse(message, path: path, source: datagram.source, arrival: datagram.arrival)
            case .rtp, .rtcp:
                guard phase == .media, isSelected(path: path, source: datagram.source) else { return }
                lastFromEdge = datagram.arrival
                markPeerConnected(datagram.arrival)
                if kind == .rtp { receiveRTP(datagram) } else { receiveRTCP(datagram) }
            default:
                return
            }
        }

        /// Whether media from `source` on `path` comes over the selected pair.
        func isSelected(path: ICEAgentState.Path, source: SocketAddress) -> Bool {
            guard let selected = agent.selected, let pair = agent.checkList?.pairs[selected] else { return false }
            return agent.locals[pair.local].path == path && agent.remotes[pair.remote].address == source
        }

        mutating func markPeerConnected(_ instant: ContinuousClock.Instant) {
            guard !peerConnected else { return }
            peerConnected = true
            mark(.peerConnectionState, "connected", at: instant)
            let start = agent.checkingStarted ?? instant
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
            guard let route = route.current else { return }
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
            if let bytes = try? compound.encoded() { route.send(bytes) }
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

        /// The closing sample, unless a tick took one within half a second of the media's end:
        /// one sample a second.
        mutating func takeFinalSample() {
            if let last = lastSample, (mediaEnded ?? clock.now) - last < .milliseconds(500) { return }
            takeSample()
        }

        mutating func finalReport() -> PreflightReport {
            phase = .ended
            closeTimeline()
            return partialReport()
        }

        /// The closing states of the timeline (unless a failure already ended it).
        mutating func closeTimeline() {
            guard agent.timeline.last?.name != "closed" else { return }
            if callOpen || phase == .ended || phase == .media {
                mark(.iceConnectionState, "closed")
                mark(.peerConnectionState, "closed")
                mark(.signalingState, "closed")
            }
        }

        // MARK: Candidates

        /// Host candidates on every interface: IPv4 on the media socket's `port`, IPv6 (not
        /// link-local, whose scope a candidate cannot carry) on `port6` when there is an IPv6
        /// socket. A loopback edge is reached from loopback only, any other edge from the others.
        static func hostCandidates(port: Int, port6: Int?, edgeURL: String) -> [(stats: ICECandidateStats, isIPv6: Bool)] {
            let loopbackEdge = edgeURL.contains("://127.") || edgeURL.contains("://localhost") || edgeURL.contains("://[::1]")
            var addresses: [(ip: String, device: String, isIPv6: Bool)] = []
            if let devices = try? System.enumerateDevices() {
                for device in devices {
                    guard let address = device.address, let ip = address.ipAddress else { continue }
                    let isIPv6 = address.protocol == .inet6
                    guard address.protocol == .inet || (isIPv6 && port6 != nil && !ip.lowercased().hasPrefix("fe80")) else { continue }
                    let isLoopback = ip.hasPrefix("127.") || ip == "::1"
                    if isLoopback == loopbackEdge, !addresses.contains(where: { $0.ip == ip }) {
                        addresses.append((ip, device.name, isIPv6))
                    }
                }
            }
            if !addresses.contains(where: { !$0.isIPv6 }) { addresses.insert((loopbackEdge ? "127.0.0.1" : "0.0.0.0", "", false), at: 0) }
            // IPv4 first: the edge's candidates are IPv4 unless it runs on IPv6.
            addresses.sort { !$0.isIPv6 && $1.isIPv6 }
            return addresses.enumerated().map { index, entry in
                (ICECandidateStats(
                    candidateType: .host, networkId: index + 1,
                    priority: Int(ICECandidate.priority(typePreference: 126, localPreference: 65535 - index, component: 1)),
                    networkType: networkType(entry.ip, device: entry.device), ip: entry.ip, isRemote: false,
                    port: entry.isIPv6 ? port6 ?? 0 : port), entry.isIPv6)
            }
        }

        /// The interface's kind as WebRTC names it: from Linux's sysfs (ARPHRD type 772 is
        /// loopback, 1 Ethernet, a `wireless` directory Wi-Fi, `tun`/`wg` names VPN); else from
        /// the address.
        static func networkType(_ ip: String, device: String = "") -> String {
            if ip.hasPrefix("127.") || ip == "::1" { return "Loopback" }
            #if os(Linux)
                if !device.isEmpty, !device.contains("/") {
                    let base = "/sys/class/net/\(device)"
                    if FileManager.default.fileExists(atPath: base + "/wireless") { return "Wifi" }
                    if device.hasPrefix("tun") || device.hasPrefix("wg") || device.hasPrefix("ppp") { return "Vpn" }
                    if let type = try? String(contentsOfFile: base + "/type", encoding: .utf8) {
                        switch type.trimmingCharacters(in: .whitespacesAndNewlines) {
                        case "1": return "Ethernet"
                        case "772": return "Loopback"
                        default: break
                        }
                    }
                }
            #endif
            return "Unknown"
        }

        /// WebRTC's network cost for a network type (rtc::kNetworkCost*: 0 wired, 10 Wi-Fi,
        /// 900 cellular, 50 unknown).
        static func networkCost(_ type: String) -> Int {
            switch type {
            case "Ethernet", "Loopback": 0
            case "Wifi": 10
            case "Cellular": 900
            default: 50
            }
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
