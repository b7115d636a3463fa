import Logging
import NIOCore
import PreflightCore
import PreflightNIO
import Synchronization

/// One party of a two-party call in the call load benchmark, on the SDK's session layer (as
/// ``LoadClient``): a ``SignalingClient`` that either registers and accepts the call (the callee)
/// or places it (the caller), an ``ICEAgentDriver`` (host candidates on loopback) that connects
/// it, and raw RTP: the load run sends frames whose payload starts with the send time (µs on the
/// run's monotonic clock, shared by both parties), and this measures the bridge latency of what
/// the other party sent (the frame's index follows the send time, so that the first frame's fate
/// is known).
final class CallLoadParty: Sendable {
    let signaling: SignalingClient
    let ice: ICEAgentDriver
    private let iceEvents: AsyncStream<ICEAgentDriver.Event>.Continuation
    /// The edge's messages during set-up (read once, by ``place(to:)`` or ``answerNextCall()``).
    private let setupMessages: AsyncStream<SignalingMessage>
    private let connected: AsyncStream<Result<Void, PreflightError>>
    /// `registered` (or the edge's error) in answer to `register`.
    private let registered: AsyncStream<Result<Void, PreflightError>>
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
        signaling: SignalingClient, ice: ICEAgentDriver, iceEvents: AsyncStream<ICEAgentDriver.Event>.Continuation,
        setupMessages: AsyncStream<SignalingMessage>, connected: AsyncStream<Result<Void, PreflightError>>,
        registered: AsyncStream<Result<Void, PreflightError>>, store: FigureStore, ssrc: UInt32, origin: ContinuousClock.Instant
    ) {
        self.store = store
        self.registered = registered
        self.signaling = signaling
        self.ice = ice
        self.iceEvents = iceEvents
        self.setupMessages = setupMessages
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
        let signaling = SignalingClient(
            configuration: SignalingClientConfiguration(
                url: url, accessToken: token, clientName: "preflight-load", timeout: .seconds(30)),
            logger: logger)
        let (setupMessages, setupContinuation) = AsyncStream<SignalingMessage>.makeStream()
        let (connected, connectedContinuation) = AsyncStream<Result<Void, PreflightError>>.makeStream()
        let (registered, registeredContinuation) = AsyncStream<Result<Void, PreflightError>>.makeStream()
        var random = SystemRandomNumberGenerator()
        let party = CallLoadParty(
            signaling: signaling, ice: ice, iceEvents: eventContinuation, setupMessages: setupMessages, connected: connected,
            registered: registered, store: store, ssrc: random.next(), origin: origin)
        party.tasks.withLock {
            $0 = [
                Task { await signaling.run() },
                Task { await ice.run() },
                Task {
                    for await event in signaling.events {
                        switch event {
                        case .message(.registered):
                            registeredContinuation.yield(.success(()))
                        case .message(let message):
                            if case .hangup = message { party.store.figures.withLock { $0.ended = true } }
                            if case .error(let info) = message {
                                party.store.figures.withLock { $0.ended = true }
                                registeredContinuation.yield(.failure(info.preflightError))
                            }
                            setupContinuation.yield(message)
                        case .closed(let error):
                            party.store.figures.withLock { $0.ended = true }
                            registeredContinuation.yield(.failure(
                                error ?? PreflightError(code: .signalingDisconnected, message: "signaling: the connection was closed")))
                            setupContinuation.finish()
                        case .reconnecting, .reconnected:
                            continue
                        }
                    }
                    setupContinuation.finish()
                },
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
        do throws(PreflightError) {
            _ = try await signaling.connect()
            return party
        } catch {
            await party.close()
            throw error
        }
    }

    /// Registers for incoming calls (`register` → `registered`).
    ///
    /// Requests are sent with ``SignalingClient/send(_:)`` and their answers read from the events
    /// here, not with ``SignalingClient/register()`` or ``SignalingClient/invite(_:)``: those start
    /// waiting only after the request was written, and an answer that comes sooner goes to the
    /// events instead, so the request times out (seen about once in 100 calls here).
    func register() async throws(PreflightError) {
        try await signaling.send(.register)
        try await within(signaling.configuration.timeout, waitingFor: "registered") { [registered] in
            for await outcome in registered { return outcome }
            return .failure(PreflightError(code: .signalingDisconnected, message: "signaling: closed before registered"))
        }
    }

    /// Places a call to `callee` (`invite` with `To`), and connects ICE once it is answered.
    func place(to callee: String) async throws(PreflightError) {
        ice.gather(servers: [])
        try await signaling.send(.invite(.init(ice: ice.withAgent { $0.localParameters }, codecs: ["PCMU"], params: ["To": callee])))
        let answer = try await within(signaling.configuration.timeout, waitingFor: "answer") { [setupMessages] () async -> Result<SignalingMessage.Answer, PreflightError> in
            for await message in setupMessages {
                switch message {
                case .answer(let answer): return .success(answer)
                case .error(let info): return .failure(info.preflightError)
                case .hangup(let hangup):
                    return .failure(PreflightError(
                        code: PreflightError.Code(hangup.code ?? PreflightError.Code.generalCallError.rawValue),
                        message: "load: the call ended before it was answered (\(hangup.reason ?? "no reason"))"))
                default: continue
                }
            }
            return .failure(PreflightError(code: .signalingDisconnected, message: "load: signaling ended before the call was answered"))
        }
        store.figures.withLock { $0.callSid = answer.callSid }
        try ice.connect(remote: answer.ice)
        try await waitForICE()
    }

    /// Waits for the next `incoming` (at most a minute), accepts it (`accept` with this party's
    /// candidates), and connects ICE once the edge answers.
    func answerNextCall() async throws(PreflightError) {
        let (ice, signaling, store) = (ice, signaling, store)
        let answer = try await within(.seconds(60), waitingFor: "incoming and answer") { [setupMessages] () async -> Result<SignalingMessage.Answer, PreflightError> in
            var accepted: String?
            for await message in setupMessages {
                switch message {
                case .incoming(let incoming) where accepted == nil:
                    accepted = incoming.callSid
                    store.figures.withLock { $0.callSid = incoming.callSid }
                    ice.gather(servers: [])
                    do throws(PreflightError) {
                        try await signaling.send(.accept(.init(callSid: incoming.callSid, ice: ice.withAgent { $0.localParameters }, codecs: ["PCMU"])))
                    } catch {
                        return .failure(error)
                    }
                case .answer(let answer) where answer.callSid == accepted:
                    return .success(answer)
                case .error(let info):
                    return .failure(info.preflightError)
                case .hangup(let hangup) where hangup.callSid == accepted:
                    return .failure(PreflightError(
                        code: .generalCallError, message: "load: the call ended before it was answered (\(hangup.reason ?? "no reason"))"))
                case .cancel(let cancel) where cancel.callSid == accepted:
                    return .failure(PreflightError(code: .generalCallError, message: "load: the call was cancelled before it was answered"))
                default:
                    continue
                }
            }
            return .failure(PreflightError(code: .signalingDisconnected, message: "load: signaling ended before the call was answered"))
        }
        try ice.connect(remote: answer.ice)
        try await waitForICE()
    }

    /// `body`'s result, or a 53002 timeout after `timeout`.
    private func within<T: Sendable>(
        _ timeout: Duration, waitingFor what: String, _ body: @escaping @Sendable () async -> Result<T, PreflightError>
    ) async throws(PreflightError) -> T {
        let outcome = await withTaskGroup(of: Result<T, PreflightError>.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .failure(PreflightError(code: .signalingTimeout, message: "signaling: no \(what) within \(timeout)"))
            }
            let first = await group.next()
            group.cancelAll()
            return first ?? .failure(PreflightError(code: .cancelled, message: "load: cancelled"))
        }
        return try outcome.get()
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
        store.figures.withLock { $0 }
    }

    /// Hangs up (when the call got that far) and closes the sockets and the connection.
    func close() async {
        if let callSid = store.figures.withLock({ $0.callSid }) { await signaling.hangup(callSid: callSid, reason: "load run over") }
        await ice.close()
        iceEvents.finish()
        await signaling.close()
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}
