import Foundation
import NIOCore
import NIOPosix
import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

/// Our STUN and TURN clients against coturn, the TURN server deployments run, on loopback; and
/// the SDK's ICE agent through it.
@Suite(.realTime, 
    .serialized, .timeLimit(.minutes(10)),
    // Needs coturn: skipped without it outside CI, fails without it under CI=true (ExternalTool).
    .enabled(if: ExternalTool.canRun(needing: "turnserver"), "needs coturn's turnserver on PATH (apt-get install coturn)"))
struct TURNInteropTests {
    /// Sends `bytes` to `server` from `socket` and returns the first received message `accept`
    /// takes (loopback: no retransmission; the suite's time limit ends a silent server).
    static func exchange(
        _ socket: MediaSocket, _ bytes: [UInt8], to server: SocketAddress, accept: (STUNMessage) -> Bool
    ) async throws -> STUNMessage {
        // Retransmit until answered: coturn may open its UDP listener after its TCP one.
        let sender = Task {
            while !Task.isCancelled {
                socket.send(bytes, to: server)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { sender.cancel() }
        for await datagram in socket.datagrams {
            if let message = try? STUNMessage(decoding: Array(datagram.data.readableBytesView)), accept(message) {
                return message
            }
        }
        throw PreflightError(code: .mediaConnectionFailed, message: "no answer from \(server)")
    }

    static func loopback(_ port: Int) throws -> SocketAddress {
        try SocketAddress(ipAddress: "127.0.0.1", port: port)
    }

    @Test func stunBindingAgainstCoturnReturnsOurAddressWithAValidFingerprint() async throws {
        let turn = try await TURNServerProcess.start()
        defer { turn.stop() }
        let socket = try await MediaSocket.bind(host: "127.0.0.1")
        let request = STUNMessage(type: .bindingRequest, transactionID: .random(), attributes: [.software("preflight-test")])
        let response = try await Self.exchange(socket, try request.encoded(fingerprint: true), to: Self.loopback(turn.port)) {
            $0.transactionID == request.transactionID
        }
        #expect(response.type == .bindingSuccess)
        #expect(response.xorMappedAddress?.description == "127.0.0.1:\(socket.localAddress?.port ?? -1)")
        try response.verifyFingerprint()
        await socket.close()
    }

    @Test(arguments: [false, true])
    func turnClientAllocatesBindsAChannelAndRelaysBothWays(overTCP: Bool) async throws {
        let turn = try await TURNServerProcess.start()
        defer { turn.stop() }
        let credentials = turn.credentials()
        var client = TURNClient(username: credentials.username, password: credentials.password, isStream: overTCP)
        let peer = try await MediaSocket.bind(host: "127.0.0.1")
        let peerAddress = try #require(TransportAddress(host: "127.0.0.1", port: UInt16(peer.localAddress?.port ?? 0)))
        let server = try Self.loopback(turn.port)

        // One message path to coturn: a UDP socket or a TCP connection, both giving STUN/ChannelData messages.
        let udp = overTCP ? nil : try await MediaSocket.bind(host: "127.0.0.1")
        let tcp = overTCP ? try await TURNStreamConnection.connect(to: server, tls: nil, serverHostname: nil, timeout: .seconds(2)) : nil
        let inbound = udp?.datagrams ?? tcp!.messages
        var messages = inbound.makeAsyncIterator()
        func send(_ bytes: [UInt8]) {
            if let udp { udp.send(bytes, to: server) } else { tcp?.send(bytes) }
        }
        func nextEvent() async throws -> TURNClient.Event {
            while let datagram = await messages.next() {
                let bytes = Array(datagram.data.readableBytesView)
                if bytes.first.map({ $0 & 0xC0 == 0x40 }) == true {
                    let (from, payload) = try #require(client.unwrap(channelData: bytes))
                    return .data(peer: from, payload: payload)
                }
                let message = try STUNMessage(decoding: bytes)
                let event = client.handle(message, now: 0)
                if case .resend(let again) = event {
                    send(again)
                    continue
                }
                if message.type.messageClass == .successResponse {
                    // coturn signed its answer with the long-term key of our credentials.
                    try message.verifyIntegrity(credentials: .longTerm(
                        username: credentials.username, realm: turn.realm, password: credentials.password))
                    try message.verifyFingerprint()
                }
                if event != .none { return event }
            }
            throw PreflightError(code: .mediaConnectionFailed, message: "coturn closed the connection")
        }

        send(client.allocate(now: 0))
        let allocated = try await nextEvent()
        guard case .allocated(let relayed, let mapped) = allocated else {
            Issue.record("expected an allocation, got \(allocated)")
            return
        }
        #expect(relayed.host == "127.0.0.1")
        #expect(mapped?.host == "127.0.0.1")
        let bind = client.channelBind(peer: peerAddress, now: 0)
        send(try #require(bind))
        let bound = try await nextEvent()
        #expect(bound == .channelBound(peer: peerAddress, channel: 0x4000))

        // Client → relay → peer: ChannelData arrives at the peer as plain UDP from the relayed address.
        send(try #require(client.wrap(Array("hello peer".utf8), to: peerAddress)))
        var peerMessages = peer.datagrams.makeAsyncIterator()
        let atPeer = try #require(await peerMessages.next())
        #expect(Array(atPeer.data.readableBytesView) == Array("hello peer".utf8))
        #expect(atPeer.source.port == Int(relayed.port))

        // Peer → relay → client: back as ChannelData on the bound channel.
        peer.send(Array("hello client".utf8), to: atPeer.source)
        let back = try await nextEvent()
        #expect(back == .data(peer: peerAddress, payload: Array("hello client".utf8)[...]))

        // Deallocate: Refresh with lifetime 0.
        let refresh = client.refresh(lifetime: 0, now: 0)
        send(try #require(refresh))
        #expect(try await nextEvent() == .refreshed(lifetime: 0))
        #expect(client.state == .closed)
        await peer.close()
        await udp?.close()
        await tcp?.close()
    }

    @Test func coturnRefusingTheCredentialsIsReportedAs401() async throws {
        let turn = try await TURNServerProcess.start()
        defer { turn.stop() }
        let good = turn.credentials()
        var client = TURNClient(username: good.username, password: "not-the-password", isStream: false)
        let socket = try await MediaSocket.bind(host: "127.0.0.1")
        let server = try Self.loopback(turn.port)
        var messages = socket.datagrams.makeAsyncIterator()
        socket.send(client.allocate(now: 0), to: server)
        var outcome: TURNClient.Event = .none
        while let datagram = await messages.next() {
            outcome = client.handle(try STUNMessage(decoding: Array(datagram.data.readableBytesView)), now: 0)
            if case .resend(let again) = outcome {
                socket.send(again, to: server)
                continue
            }
            break
        }
        guard case .failed(let error, let reason) = outcome else {
            Issue.record("expected a refusal, got \(outcome)")
            return
        }
        #expect(error?.code == 401)
        #expect(reason.contains("refused the credentials"))
        await socket.close()
    }
}
