import Foundation
import Logging
import NIOCore
import NIOSSL
import PreflightCore
import Synchronization

extension ICEAgentDriver {
    /// Runs `body` on the agent, delivers its events (under the lock, so they stay in order
    /// whichever task fed the agent), then performs the rest of its outputs.
    func tryUpdate<Value>(_ body: (inout ICEAgent) throws(PreflightError) -> Value) throws(PreflightError) -> Value {
        // What the agent queued before it threw (its `failed` event) is delivered too.
        let (result, actions) = agent.withLock { agent -> (Result<Value, PreflightError>, [ICEAgent.Output]) in
            let result: Result<Value, PreflightError>
            do throws(PreflightError) {
                result = .success(try body(&agent))
            } catch {
                result = .failure(error)
            }
            return (result, deliverEvents(agent.takeOutputs()))
        }
        perform(actions)
        return try result.get()
    }

    func update(_ body: (inout ICEAgent) -> Void) {
        let actions = agent.withLock { agent in
            body(&agent)
            return deliverEvents(agent.takeOutputs())
        }
        perform(actions)
    }

    /// Yields the events among `outputs`; returns the rest.
    private func deliverEvents(_ outputs: [ICEAgent.Output]) -> [ICEAgent.Output] {
        var actions: [ICEAgent.Output] = []
        for output in outputs {
            guard case .event(let event) = output else {
                actions.append(output)
                continue
            }
            switch event {
            case .serverFailed(let record):
                logger.info("ICE server gave no candidate", metadata: ["url": "\(record.url)", "error": "\(record.errorCode) \(record.errorText)"])
            case .channelBindRefused(let server, let peer, let error):
                logger.info("TURN ChannelBind refused; Send indications carry the data", metadata: [
                    "server": "\(server)", "peer": "\(peer)", "error": "\(error.map { "\($0)" } ?? "no answer")",
                ])
            default:
                break
            }
            deliver(.agent(event))
        }
        return actions
    }

    private func perform(_ actions: [ICEAgent.Output]) {
        for action in actions {
            switch action {
            case .transmit(let bytes, let transport):
                send(bytes, transport)
            case .resolve(let id, let host, let port):
                workContinuation.yield(.resolve(id, host: host, port: port))
            case .connect(let id, let address, let url):
                workContinuation.yield(.connect(id, address: address, url: url))
            case .closeStream(let id):
                // Closed on its event loop after what was written to it (a deleting Refresh).
                streams.withLock { $0.removeValue(forKey: id) }?.channel.close(promise: nil)
            case .event:
                continue
            }
        }
    }

    func send(_ bytes: [UInt8], _ transport: ICEAgent.Transport) {
        switch transport {
        case .udp(let socket, let destination):
            guard let address = destination.socketAddress else { return }
            (socket == .ipv6 ? ipv6Socket : self.socket)?.send(bytes, to: address)
        case .stream(let id):
            streams.withLock { $0[id] }?.send(bytes)
        }
    }

    func received(_ datagram: Datagram, on socket: ICEAgent.Socket) {
        guard let source = TransportAddress(datagram.source) else { return }
        let now = seconds(datagram.arrival)
        feed(datagram) { agent in datagram.data.withUnsafeReadableBytes { agent.receive($0, from: source, on: socket, now: now) } }
    }

    /// Gives the agent what arrived; its events first, then the media it let through, in order.
    private func feed(_ datagram: Datagram, _ receive: (inout ICEAgent) -> ICEAgent.Inbound) {
        let actions = agent.withLock { agent in
            let inbound = receive(&agent)
            let actions = deliverEvents(agent.takeOutputs())
            deliverMedia(inbound, datagram)
            return actions
        }
        perform(actions)
    }

    private func deliverMedia(_ inbound: ICEAgent.Inbound, _ datagram: Datagram) {
        switch inbound {
        case .consumed:
            return
        case .media:
            deliver(.media(datagram))
        case .relayedMedia(let payload):
            deliver(.media(Datagram(data: ByteBuffer(bytes: payload), source: datagram.source, arrival: datagram.arrival)))
        }
    }

    /// Gives the agent the time every ``ICEAgentDriverConfiguration/tickInterval``.
    func tick() async {
        let clock = ContinuousClock()
        var next = clock.now
        while true {
            next += configuration.tickInterval
            do { try await Task.sleep(until: next, clock: clock) } catch { return }
            update { $0.poll(now: self.seconds(clock.now)) }
        }
    }

    /// Opens the TCP or TLS connection to a TURN server and feeds the agent what it carries.
    func connectStream(_ id: ICEAgent.ServerID, address: TransportAddress, url: ICEServerURL) async {
        var tls: TLSConfiguration?
        if url.scheme == .turns {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let file = self.configuration.turnTrustedCertificatesFile {
                do {
                    configuration.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
                } catch {
                    update { $0.streamFailed(id, reason: "cannot read the trusted certificates in \(file): \(error)", now: self.seconds(.now)) }
                    return
                }
            }
            tls = configuration
        }
        guard let socketAddress = address.socketAddress else { return }
        // SNI and certificate names are for host names; an address literal has none.
        let hostname = TransportAddress(host: url.host, port: 0) == nil ? url.host : nil
        let connection: TURNStreamConnection
        do throws(PreflightError) {
            connection = try await TURNStreamConnection.connect(
                to: socketAddress, tls: tls, serverHostname: hostname, timeout: self.configuration.agent.gatheringTimeout)
        } catch {
            update { $0.streamFailed(id, reason: error.message, now: self.seconds(.now)) }
            return
        }
        streams.withLock { $0[id] = connection }
        update { $0.streamConnected(id, now: self.seconds(.now)) }
        for await message in connection.messages {
            let now = seconds(message.arrival)
            feed(message) { $0.receive(streamMessage: Array(message.data.readableBytesView), from: id, now: now) }
        }
        update { $0.streamFailed(id, reason: "TURN: the server closed the connection", now: self.seconds(.now)) }
    }
}
