import Logging
internal import PreflightCore
internal import PreflightNIO
import Synchronization

extension LastmileProbeRun {
    /// Every 20 ms: pings, then each direction in turn, and the end.
    mutating func control(group: inout TaskGroup<Void>) throws(PreflightError) {
        let now = seconds()
        switch phase {
        case .pinging:
            guard let pingStart else { return }
            if pingsSent < Self.pings, now >= pingStart + Double(pingsSent) * Self.pingInterval {
                ping()
            } else if pingsSent >= Self.pings, quietRTTs.count >= Self.pings || now - pingStart >= Self.pingWait {
                phase = .probing
                startNextDirection(at: now, group: &group)
            }
        case .probing:
            guard let direction = current else { return }
            if now - lastPing >= Self.heartbeat { ping() }
            if direction.way == .downlink { requestTrain(direction, at: now) }
            let (done, observed) = direction.state.withLock { ($0.senderDone, $0.lastObserved) }
            guard let done else { return }
            if now - done >= Self.drainLimit || (now - done >= Self.drainQuiet && now - observed >= Self.drainQuiet) {
                finish(direction, at: now)
                startNextDirection(at: now, group: &group)
            }
        case .connecting, .gathering, .awaitingAnswer, .checking, .done:
            break
        }
    }

    /// Starts the next direction asked for, or ends the probe when none is left.
    mutating func startNextDirection(at now: Double, group: inout TaskGroup<Void>) {
        guard !pending.isEmpty else {
            current = nil
            phase = .done
            return
        }
        let way = pending.removeFirst()
        let direction = ProbeDirection(
            way: way, expectedBitrate: way == .uplink ? config.expectedUplinkBitrate : config.expectedDownlinkBitrate, start: now)
        current = direction
        logger.debug("probing", metadata: ["direction": "\(way.rawValue)", "expected": "\(direction.expectedBitrate)"])
        switch way {
        case .uplink:
            let ice = ice
            let origin = origin
            let ssrc = ssrc
            let overhead = overhead
            group.addTask {
                await direction.sendUplink(
                    ssrc: ssrc, overhead: overhead, now: { (ContinuousClock.now - origin).inSeconds }, transmit: { ice.sendMedia($0) })
            }
        case .downlink:
            direction.state.withLock { $0.receiveErrorsAtStart = UDPStatistics.receiveBufferErrors() }
            requestTrain(direction, at: now)
        }
    }

    /// The downlink: asks the edge for the controller's rate whenever it changes, and renews the
    /// train before it runs out; rate 0 once the controller is done.
    func requestTrain(_ direction: ProbeDirection, at now: Double) {
        let request = direction.state.withLock { state -> SignalingMessage.ProbeTrain? in
            guard state.senderDone == nil else { return nil }
            guard let rate = state.controller.rate(at: now) else {
                state.senderDone = now
                state.train = nil
                return SignalingMessage.ProbeTrain(rate: 0, size: ProbePacket.minimumSize, duration: 0)
            }
            let size = ProbePacket.size(forRate: rate)
            let wanted = Int(rate.rounded())
            if let train = state.train, train.rate == wanted, train.until - now > 0.2 { return nil }
            state.train = (wanted, size, now + Double(Self.trainDuration) / 1000)
            return SignalingMessage.ProbeTrain(rate: wanted, size: size, duration: Self.trainDuration)
        }
        if let request { outbox.yield(.probeTrain(request)) }
    }

    /// Where the direction's final hold began: by send time on the uplink (the client's clock
    /// stamps the sends), by arrival time on the downlink (the edge's does), from when the client
    /// asked for it plus the request's way there and the packets' way back (an RTT, and 100 ms
    /// for the signaling's own delays).
    func hold(of direction: ProbeDirection, _ controller: BandwidthProbeController) -> BandwidthEstimator.Hold? {
        guard let start = controller.holdStart else { return nil }
        switch direction.way {
        case .uplink: return .sentFrom(start)
        case .downlink: return .arrivedFrom(start + 0.1 + (rttEstimate ?? 0) / 1000)
        }
    }

    /// A direction is over: its estimate becomes its result.
    mutating func finish(_ direction: ProbeDirection, at now: Double) {
        let snapshot = direction.state.withLock { $0 }
        var estimator = BandwidthEstimator.Configuration()
        estimator.countsHeaders = !options.countsPayloadOnly
        estimator.wireOverhead = overhead
        estimator.averagesWholeTrain = options.averagesWholeTrain
        let estimate = BandwidthEstimator.estimate(
            snapshot.arrivals, expectedBitrate: Double(direction.expectedBitrate), hold: hold(of: direction, snapshot.controller),
            configuration: estimator)
        var report = LastmileProbeOneWayResult(
            packetLossRate: estimate.lossPercent, jitter: estimate.jitterMilliseconds, state: .complete,
            expectedBitrate: direction.expectedBitrate, probedBitrate: snapshot.controller.highestRate, packetsReceived: estimate.packetsReceived,
            duration: now - direction.start, atLeastExpected: estimate.outcome == .atLeastExpected, packetsAfterKnee: estimate.packetsAfterKnee,
            halves: estimate.halves.map { $0 / 1000 })
        switch direction.way {
        case .uplink:
            report.bytesSent = snapshot.bytesSent
            report.packetsSent = snapshot.packetsSent
        case .downlink:
            // What the edge sent, from the sequence numbers: received bytes plus the lost packets
            // at the mean size.
            let highest = snapshot.arrivals.map(\.sequence).max().map { Int($0) + 1 } ?? 0
            let received = snapshot.arrivals.reduce(0) { $0 + $1.wireBytes }
            let mean = snapshot.arrivals.isEmpty ? 0 : received / snapshot.arrivals.count
            report.packetsSent = highest
            report.bytesSent = received + max(0, highest - snapshot.arrivals.count) * mean
            if let before = snapshot.receiveErrorsAtStart, let after = UDPStatistics.receiveBufferErrors() {
                report.receiveBufferErrors = after - before
            }
        }
        if estimate.outcome == .noEstimate {
            report.state = .incompleteNoBwe
            report.reason = estimate.reason
        } else {
            report.availableBandwidth = estimate.rate / 1000
        }
        if let drops = report.receiveBufferErrors, drops > 0 {
            report.state = .incompleteNoBwe
            report.reason = "this host dropped \(drops) datagrams in full receive buffers while the downlink ran: its figure would read low"
        }
        finished[direction.way] = report
        logger.info(
            "probed",
            metadata: [
                "direction": "\(direction.way.rawValue)", "kbps": "\(Int(report.availableBandwidth))", "state": "\(report.state.rawValue)",
                "seconds": "\(report.duration)", "reason": "\(report.reason ?? "")",
            ])
    }
}
