import Synchronization
internal import PreflightCore

/// One direction of a running probe, shared by the run's loop and (uplink) its sender task:
/// the controller deciding the rate, what was sent, what arrived.
final class ProbeDirection: Sendable {
    enum Way: String, Sendable {
        case uplink, downlink
    }

    struct State: Sendable {
        var controller: BandwidthProbeController
        var pacer = ProbePacer()
        /// Uplink: each probe packet's send time (seconds since the run's origin), by sequence number.
        var sendTimes: [Double] = []
        var arrivals: [ProbeArrival] = []
        var bytesSent = 0
        var packetsSent = 0
        /// When the sender stopped (the controller finished), seconds.
        var senderDone: Double?
        /// When the last arrival was observed, seconds.
        var lastObserved: Double
        /// Downlink: the train last asked for (rate bps, size, until seconds).
        var train: (rate: Int, size: Int, until: Double)?
        /// `RcvbufErrors` when the direction started (downlink).
        var receiveErrorsAtStart: Int?
    }

    let way: Way
    let expectedBitrate: Int
    let start: Double
    let state: Mutex<State>

    init(way: Way, expectedBitrate: Int, start: Double) {
        self.way = way
        self.expectedBitrate = expectedBitrate
        self.start = start
        state = Mutex(State(controller: BandwidthProbeController(expectedBitrate: Double(expectedBitrate), start: start), lastObserved: start))
    }

    /// The most arrivals one direction keeps: 4 s at the ceiling of 5 Mbit/s is under 4,000
    /// packets, so this bounds only what a hostile edge could make the client hold.
    static let maximumArrivals = 50_000

    /// Records an arrival and lets the controller see it.
    func observe(_ arrival: ProbeArrival, at now: Double) {
        state.withLock { state in
            guard state.arrivals.count < Self.maximumArrivals else { return }
            state.arrivals.append(arrival)
            state.controller.observe(arrival, at: now)
            state.lastObserved = now
        }
    }

    /// The uplink sender: probe packets on the controller's rate and absolute deadlines until the
    /// controller finishes or the task is cancelled.
    /// - Parameters:
    ///   - now: seconds since the run's origin.
    ///   - transmit: sends one datagram on the selected pair; `false` when there is none.
    func sendUplink(ssrc: UInt32, overhead: Int, now: @Sendable () -> Double, transmit: @Sendable ([UInt8]) -> Bool) async {
        let clock = ContinuousClock()
        while !Task.isCancelled {
            let time = now()
            enum Step {
                case send([UInt8]), wait(Double), done
            }
            let step = state.withLock { state -> Step in
                guard let rate = state.controller.rate(at: time) else {
                    state.senderDone = state.senderDone ?? time
                    return .done
                }
                let due = state.pacer.due(now: time)
                guard due <= time else { return .wait(due - time) }
                let size = ProbePacket.size(forRate: rate)
                guard let bytes = ProbePacket.encode(
                    sequence: UInt32(truncatingIfNeeded: state.sendTimes.count), sendMicroseconds: UInt64(max(0, time * 1e6)), ssrc: ssrc,
                    size: size, fromEdge: false)
                else { return .done }
                state.sendTimes.append(time)
                state.pacer.sent(wireBytes: bytes.count + overhead, rate: rate, now: time)
                state.bytesSent += bytes.count + overhead
                state.packetsSent += 1
                return .send(bytes)
            }
            switch step {
            case .send(let bytes):
                _ = transmit(bytes)
            case .wait(let seconds):
                guard (try? await Task.sleep(until: clock.now + .nanoseconds(Int64(seconds * 1e9)), clock: clock)) != nil else { return }
            case .done:
                return
            }
        }
    }
}
