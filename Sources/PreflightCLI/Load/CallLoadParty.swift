import Logging
import NIOCore
import PreflightCore
import PreflightNIO
import Synchronization

/// One party of a two-party call in the call load benchmark, on the SDK's session layer (as
/// ``LoadClient``): a ``CallLoadSignaling`` that either registers and accepts the call (the callee)
/// or places it (the caller), an ``ICEAgentDriver`` (host candidates on loopback) that connects
/// it, and raw RTP: the load run sends frames whose payload starts with the send time (µs on the
/// run's monotonic clock, shared by both parties), and this measures the bridge latency of what
/// the other party sent (the frame's index follows the send time, so that the first frame's fate
/// is known).
final class CallLoadParty: Sendable {
    let signaling: CallLoadSignaling
    let ice: ICEAgentDriver
    private let iceEvents: AsyncStream<ICEAgentDriver.Event>.Continuation
    private let connected: AsyncStream<Result<Void, PreflightError>>
    let ssrc: UInt32
    let origin: ContinuousClock.Instant
    private let store: FigureStore
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// The party's figures, shared with the ICE driver's event callback: media is counted there,
    /// on the event loop, without a hop through a stream and a task per packet.
    final class FigureStore: Sendable {
        let figures = Mutex(Figures())
    }

    struct Figures {
        var callSid: String?
        /// A hangup, an error or the end of the signaling connection after set-up.
        var ended = false
        var counting = false
        var sent = 0
        var received = 0
        var lastArrival: ContinuousClock.Instant?
        var latencies: [Double] = []
        /// Whether the other party's first frame arrived.
        var receivedFirstFrame = false
    }

    private init(
        signaling: CallLoadSignaling, ice: ICEAgentDriver, iceEvents: AsyncStream<ICEAgentDriver.Event>.Continuation,
        connected: AsyncStream<Result<Void, PreflightError>>, store: FigureStore, ssrc: UInt32, origin: ContinuousClock.Instant
    ) {
        self.store = store
        self.signaling = signaling
        self.ice = ice
        self.iceEvents = iceEvents
        self.connected = connected
        self.ssrc = ssrc
        self.origin = origin
    }

    /// Binds the ICE driver and signs in with `token`.
    /// - Parameter origin: the run's clock origin, the same for every party.
    /// - Parameter address: the IPv4 address its ICE agent binds and offers.
    static func signIn(
        url: String, token: String, address: String = "127.0.0.1", origin: ContinuousClock.Instant, logger: Logger
    ) async throws(PreflightError) -> CallLoadParty {
        let (events, eventContinuation) = AsyncStream<ICEAgentDriver.Event>.makeStream()
        let store = FigureStore()
        let ice = try await ICEAgentDriver.bind(
            configuration: ICEAgentDriverConfiguration(
                ipv4Address: address, bindsIPv6: false, offersLoopback: address.hasPrefix("127.")),
            origin: origin, logger: logger,
            events: { event in
                if case .media(let datagram) = event {
                    receive(datagram, origin: origin, into: store)
                } else {
                    eventContinuation.yield(event)
                }
            })
        let signaling: CallLoadSignaling
        do throws(PreflightError) {
            signaling = try await CallLoadSignaling.signIn(url: url, token: token, logger: logger)
        } catch {
            await ice.close()
            eventContinuation.finish()
            throw error
        }
        let (connected, connectedContinuation) = AsyncStream<Result<Void, PreflightError>>.makeStream()
        var random = SystemRandomNumberGenerator()
        let party = CallLoadParty(
            signaling: signaling, ice: ice, iceEvents: eventContinuation, connected: connected, store: store, ssrc: random.next(),
            origin: origin)
        party.tasks.withLock {
            $0 = [
                Task { await ice.run() },
                Task {
                    for await event in events {
                        switch event {
                        case .media, .mediaStarted: continue
                        case .agent(.connected): connectedContinuation.yield(.success(()))
                        case .agent(.failed(let error)): connectedContinuation.yield(.failure(error))
                        case .agent: continue
                        }
                    }
                    connectedContinuation.finish()
                },
            ]
        }
        return party
    }

    /// Registers for incoming calls.
    func register() async throws(PreflightError) {
        try await signaling.register()
    }

    /// Places a call to `callee` (`invite` with `To`), and connects ICE once it is answered.
    func place(to callee: String) async throws(PreflightError) {
        ice.gather(servers: [])
        let answer = try await signaling.place(to: callee, ice: ice.withAgent { $0.localParameters }, srtp: nil)
        try ice.connect(remote: answer.ice)
        try await waitForICE()
    }

    /// Waits for the next `incoming` (at most a minute), accepts it (`accept` with this party's
    /// candidates), and connects ICE once the edge answers.
    func answerNextCall() async throws(PreflightError) {
        let ice = ice
        let answer = try await signaling.answerNextCall(
            ice: {
                ice.gather(servers: [])
                return ice.withAgent { $0.localParameters }
            }, srtp: nil)
        try ice.connect(remote: answer.ice)
        try await waitForICE()
    }

    /// Waits for ICE to select a pair; the agent's own check timeout bounds the wait.
    private func waitForICE() async throws(PreflightError) {
        for await outcome in connected {
            try outcome.get()
            return
        }
        throw PreflightError(code: .mediaConnectionFailed, message: "load: ICE ended before a pair was selected")
    }

    /// Counts what arrives from now on.
    func startCounting() {
        store.figures.withLock { $0.counting = true }
    }

    /// Sends frame `frame`: RTP (PCMU, 160-byte payload) whose first 8 payload bytes are the send
    /// time, µs since the run's origin, and the next 4 the frame's index, both big-endian.
    func sendFrame(_ frame: Int) {
        let sendTime = UInt64(max(0, (ContinuousClock.now - origin).inSeconds * 1e6))
        var payload = [UInt8](repeating: 0xFF, count: 160)
        for index in 0..<8 { payload[index] = UInt8(truncatingIfNeeded: sendTime >> (56 - 8 * index)) }
        for index in 0..<4 { payload[8 + index] = UInt8(truncatingIfNeeded: frame >> (24 - 8 * index)) }
        let packet = RTPPacket(
            payloadType: MuLaw.payloadType, sequenceNumber: UInt16(truncatingIfNeeded: frame),
            timestamp: UInt32(truncatingIfNeeded: frame * 160), ssrc: ssrc, payload: payload[...])
        guard let bytes = try? packet.encoded() else { return }
        guard ice.sendMedia(bytes) else { return }
        store.figures.withLock { $0.sent += 1 }
    }

    /// A packet the bridge forwarded from the other party: its latency is its arrival (stamped on
    /// the event loop) minus the send time in its payload.
    static func receive(_ datagram: Datagram, origin: ContinuousClock.Instant, into store: FigureStore) {
        let arrival = (datagram.arrival - origin).inSeconds * 1e6
        let stamp = datagram.data.withUnsafeReadableBytes { bytes -> (sendTime: UInt64, frame: UInt32)? in
            guard let header = try? RTPHeader(parsing: bytes), header.payloadRange.count >= 12 else { return nil }
            var sendTime: UInt64 = 0
            for index in header.payloadRange.prefix(8) { sendTime = sendTime << 8 | UInt64(bytes[index]) }
            var frame: UInt32 = 0
            for index in header.payloadRange.dropFirst(8).prefix(4) { frame = frame << 8 | UInt32(bytes[index]) }
            return (sendTime, frame)
        }
        guard let (sendTime, frame) = stamp else { return }
        store.figures.withLock { figures in
            guard figures.counting else { return }
            figures.received += 1
            if frame == 0 { figures.receivedFirstFrame = true }
            figures.lastArrival = datagram.arrival
            figures.latencies.append((arrival - Double(sendTime)) / 1000)
        }
    }

    func figures() -> Figures {
        var figures = store.figures.withLock { $0 }
        (figures.callSid, figures.ended) = (signaling.callSid, signaling.ended)
        return figures
    }

    /// Hangs up (when the call got that far) and closes the sockets and the connection.
    func close() async {
        await signaling.close()
        await ice.close()
        iceEvents.finish()
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}
