import Logging
import NIOCore
import PreflightCore
import PreflightNIO
import Synchronization

/// One echo session of the load benchmark: signaling, one ICE check, then RTP on demand.
final class LoadClient: Sendable {
    let socket: MediaSocket
    let signaling: SignalingConnection
    let peer: SocketAddress
    let ssrc: UInt32
    let origin: ContinuousClock.Instant
    let state = Mutex(Figures())
    private let tasks = Mutex<[Task<Void, Never>]>([])

    struct Figures {
        var verified = false
        var counting = false
        var sent = 0
        var echoed = 0
        var latencies: [Double] = []
    }

    private init(socket: MediaSocket, signaling: SignalingConnection, peer: SocketAddress, ssrc: UInt32, origin: ContinuousClock.Instant) {
        self.socket = socket
        self.signaling = signaling
        self.peer = peer
        self.ssrc = ssrc
        self.origin = origin
    }

    /// Signs in, places an echo call, passes the ICE check and starts counting echoes.
    static func connect(url: String, token: String, logger: Logger) async throws -> LoadClient {
        let socket = try await MediaSocket.bind(host: "127.0.0.1")
        let signaling = SignalingConnection(url: url, logger: logger)
        let runTask = Task { await signaling.run() }
        var random = SystemRandomNumberGenerator()
        let (ufrag, password) = ICEParameters.randomCredentials()
        var answer: SignalingMessage.Answer?
        for await event in signaling.events {
            switch event {
            case .connected: try await signaling.send(.hello(token: token, client: "preflight-load"))
            case .message(.welcome):
                try await signaling.send(.invite(.init(ice: ICEParameters(ufrag: ufrag, pwd: password), codecs: ["PCMU"])))
            case .message(.answer(let body)): answer = body
            case .message, .closed: break
            }
            if answer != nil { break }
            if case .closed(let error) = event { throw error ?? PreflightError(code: .signalingDisconnected, message: "load: closed") }
            if case .message(.error(let info)) = event { throw info.preflightError }
        }
        guard let answer, let candidate = answer.ice.candidates.first,
            let peer = try? SocketAddress(ipAddress: candidate.address, port: Int(candidate.port))
        else { throw PreflightError(code: .connectionError, message: "load: no answer") }
        // One authenticated check (retried every 100 ms) unlocks media from this socket.
        let client = LoadClient(socket: socket, signaling: signaling, peer: peer, ssrc: random.next(), origin: .now)
        let receiveTask = Task { [client] in
            for await datagram in socket.datagrams { client.receive(datagram) }
        }
        let key = STUNIntegrityKey(Array(answer.ice.pwd.utf8))
        for _ in 0..<30 where !client.state.withLock({ $0.verified }) {
            let request = STUNMessage(
                type: .bindingRequest, transactionID: .random(),
                attributes: [.username("\(answer.ice.ufrag):\(ufrag)"), .priority(1), .iceControlling(1), .useCandidate])
            socket.send(try request.encoded(integrityKey: key, fingerprint: true), to: peer)
            try await Task.sleep(for: .milliseconds(100))
        }
        guard client.state.withLock({ $0.verified }) else {
            receiveTask.cancel()
            runTask.cancel()
            await client.close()
            throw PreflightError(code: .mediaConnectionFailed, message: "load: ICE check failed")
        }
        client.tasks.withLock { $0 = [runTask, receiveTask] }
        return client
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
        socket.send(bytes, to: peer)
        state.withLock { $0.sent += 1 }
    }

    func receive(_ datagram: Datagram) {
        let arrival = UInt64(max(0, (datagram.arrival - origin).inSeconds * 1e6))
        if datagram.data.withUnsafeReadableBytes({ PacketKind.classify($0) }) == .stun {
            let response = try? STUNMessage(decoding: Array(datagram.data.readableBytesView))
            if response?.type == .bindingSuccess { state.withLock { $0.verified = true } }
            return
        }
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
        await signaling.close()
        await socket.close()
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}
