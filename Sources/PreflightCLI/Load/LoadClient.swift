import Logging
import NIOCore
import PreflightCore
import PreflightNIO
import Synchronization

/// One echo session of the load benchmark, on the SDK's session layer: a ``SignalingClient``
/// signs in and places the call, an ``ICEAgentDriver`` (host candidates on loopback) connects it,
/// and the load run sends RTP on demand while this counts the echoes.
final class LoadClient: Sendable {
    let signaling: SignalingClient
    let ice: ICEAgentDriver
    let eventContinuation: AsyncStream<ICEAgentDriver.Event>.Continuation
    let ssrc: UInt32
    let origin: ContinuousClock.Instant
    let state = Mutex(Figures())
    private let tasks = Mutex<[Task<Void, Never>]>([])

    struct Figures {
        var callSid: String?
        var connected = false
        var counting = false
        var sent = 0
        var echoed = 0
        var latencies: [Double] = []
    }

    private init(
        signaling: SignalingClient, ice: ICEAgentDriver, events: AsyncStream<ICEAgentDriver.Event>.Continuation, ssrc: UInt32,
        origin: ContinuousClock.Instant
    ) {
        self.signaling = signaling
        self.ice = ice
        eventContinuation = events
        self.ssrc = ssrc
        self.origin = origin
    }

    /// Signs in, places an echo call and waits until ICE selects a pair.
    static func connect(url: String, token: String, logger: Logger) async throws(PreflightError) -> LoadClient {
        let origin = ContinuousClock.now
        let (events, eventContinuation) = AsyncStream<ICEAgentDriver.Event>.makeStream()
        let ice = try await ICEAgentDriver.bind(
            configuration: ICEAgentDriverConfiguration(
                ipv4Address: "127.0.0.1", bindsIPv6: false, offersLoopback: true),
            origin: origin, logger: logger, events: { eventContinuation.yield($0) })
        let signaling = SignalingClient(
            configuration: SignalingClientConfiguration(url: url, accessToken: token, clientName: "preflight-load"), logger: logger)
        var random = SystemRandomNumberGenerator()
        let client = LoadClient(signaling: signaling, ice: ice, events: eventContinuation, ssrc: random.next(), origin: origin)
        let (connected, connectedContinuation) = AsyncStream<Result<Void, PreflightError>>.makeStream()
        client.tasks.withLock {
            $0 = [
                Task { await signaling.run() },
                Task { await ice.run() },
                Task {
                    for await event in events {
                        switch event {
                        case .media(let datagram): client.receive(datagram)
                        case .agent(.connected): connectedContinuation.yield(.success(()))
                        case .agent(.failed(let error)): connectedContinuation.yield(.failure(error))
                        case .agent, .mediaStarted: continue
                        }
                    }
                    connectedContinuation.finish()
                },
            ]
        }
        do throws(PreflightError) {
            _ = try await signaling.connect()
            ice.gather(servers: [])
            let answer = try await signaling.invite(.init(ice: ice.withAgent { $0.localParameters }, codecs: ["PCMU"]))
            client.state.withLock { $0.callSid = answer.callSid }
            try ice.connect(remote: answer.ice)
            for await outcome in connected {
                try outcome.get()
                client.state.withLock { $0.connected = true }
                return client
            }
            throw PreflightError(code: .mediaConnectionFailed, message: "load: ICE ended before a pair was selected")
        } catch {
            await client.close()
            throw error
        }
    }

    func startCounting() {
        state.withLock { $0.counting = true }
    }

    func sendFrame(_ frame: Int) {
        let sendTime = UInt64(max(0, (ContinuousClock.now - origin).inSeconds * 1e6))
        let packet = RTPPacket(
            payloadType: MuLaw.payloadType, sequenceNumber: UInt16(truncatingIfNeeded: frame),
            timestamp: UInt32(truncatingIfNeeded: frame * 160), ssrc: ssrc,
            headerExtension: MediaExtension.clientExtension(sendMicroseconds: sendTime),
            payload: ArraySlice(repeating: 0xFF, count: 160))
        guard let bytes = try? packet.encoded() else { return }
        ice.sendMedia(bytes)
        state.withLock { $0.sent += 1 }
    }

    func receive(_ datagram: Datagram) {
        let arrival = UInt64(max(0, (datagram.arrival - origin).inSeconds * 1e6))
        let echo = datagram.data.withUnsafeReadableBytes { bytes in
            (try? RTPHeader(parsing: bytes)).flatMap { MediaExtension.echoReport($0, in: bytes) }
        }
        guard let echo else { return }
        state.withLock { figures in
            guard figures.counting else { return }
            figures.echoed += 1
            figures.latencies.append((Double(arrival) - Double(echo.clientSendMicroseconds)) / 1000)
        }
    }

    func figures() -> Figures {
        state.withLock { $0 }
    }

    func close() async {
        // A call ends with a hangup: a connection merely closed would park the session on the
        // edge for its resume window.
        if let callSid = state.withLock({ $0.callSid }) { await signaling.hangup(callSid: callSid, reason: "load run over") }
        await ice.close()
        eventContinuation.finish()
        await signaling.close()
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}
