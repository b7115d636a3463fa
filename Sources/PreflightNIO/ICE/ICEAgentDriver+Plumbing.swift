import Foundation
import Logging
import NIOCore
import NIOSSL
import PreflightCore
import Synchronization

extension ICEAgentDriver {
    /// Runs `body` on the agent, queues its events, re-arms the timer, then (outside the lock)
    /// performs the rest of its outputs and delivers the events in order.
    func tryUpdate<Value>(_ body: (inout ICEAgent) throws(PreflightError) -> Value) throws(PreflightError) -> Value {
        // What the agent queued before it threw (its `failed` event) is delivered too.
        let (result, actions, delivers) = state.withLock { state -> (Result<Value, PreflightError>, [ICEAgent.Output], Bool) in
            let result: Result<Value, PreflightError>
            do throws(PreflightError) {
                result = .success(try body(&state.agent))
            } catch {
                result = .failure(error)
            }
            let (actions, delivers) = settle(&state)
            return (result, actions, delivers)
        }
        perform(actions)
        if delivers { drainOutbox() }
        return try result.get()
    }

    func update(_ body: (inout ICEAgent) -> Void) {
        let (actions, delivers) = state.withLock { state in
            body(&state.agent)
            return settle(&state)
        }
        perform(actions)
        if delivers { drainOutbox() }
    }

    /// After an input (under the lock): the agent's events go to the outbox, the timer follows
    /// its deadline. Returns the other outputs, and whether this caller is to deliver the outbox.
    private func settle(_ state: inout State) -> (actions: [ICEAgent.Output], delivers: Bool) {
        let actions = takeOutputs(&state)
        arm(&state)
        return (actions, claimDelivery(&state))
    }

    /// Moves the agent's events to the outbox; returns its other outputs.
    private func takeOutputs(_ state: inout State) -> [ICEAgent.Output] {
        var actions: [ICEAgent.Output] = []
        for output in state.agent.takeOutputs() {
            if case .event(let event) = output {
                if !state.closed { state.outbox.append(.agent(event)) }
            } else {
                actions.append(output)
            }
        }
        return actions
    }

    /// Whether the caller delivers the outbox: only when it has something and no one else does.
    private func claimDelivery(_ state: inout State) -> Bool {
        guard !state.outbox.isEmpty, !state.delivering else { return false }
        state.delivering = true
        return true
    }

    /// Delivers the outbox, oldest first, outside the lock, until it is empty; events queued
    /// meanwhile by other threads (or by a handler) are delivered by this loop, after.
    private func drainOutbox() {
        while true {
            let batch = state.withLock { state -> [Event] in
                if state.outbox.isEmpty {
                    state.delivering = false
                    return []
                }
                defer { state.outbox.removeAll(keepingCapacity: true) }
                return state.outbox
            }
            if batch.isEmpty { return }
            for event in batch {
                if case .agent(let agentEvent) = event { log(agentEvent) }
                deliver(event)
            }
        }
    }

    /// Arms the one timer for the agent's next deadline, unless one already fires no later.
    private func arm(_ state: inout State) {
        guard !state.closed, let deadline = state.agent.nextDeadline else {
            state.timer?.task.cancel()
            state.timer = nil
            return
        }
        if let timer = state.timer, timer.deadline <= deadline { return }
        state.timer?.task.cancel()
        state.timersArmed &+= 1
        let generation = state.timersArmed
        let delay = max(0, deadline - seconds(.now))
        let task = socket.channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(min(delay, 86_400) * 1e9))) { [weak self] () -> Void in
            guard let self else { return }
            self.timerFired(generation)
        }
        state.timer = (task, deadline, generation)
    }

    /// The timer fired: the agent polls, and the timer is armed for its next deadline. A timer
    /// cancelled too late to stop it (an older generation) polls too, harmlessly.
    private func timerFired(_ generation: UInt64) {
        let (actions, delivers) = state.withLock { state in
            if state.timer?.generation == generation { state.timer = nil }
            if !state.closed { state.agent.poll(now: seconds(.now)) }
            return settle(&state)
        }
        perform(actions)
        if delivers { drainOutbox() }
    }

    private func log(_ event: ICEAgent.Event) {
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
            switch socket {
            case .ipv4: self.socket.send(bytes, to: address)
            case .ipv6: ipv6Socket?.send(bytes, to: address)
            default: networkSockets.withLock { $0.sockets[socket]?.socket }?.send(bytes, to: address)
            }
        case .stream(let id):
            streams.withLock { $0[id] }?.send(bytes)
        }
    }

    /// A datagram on one of the sockets (on its event loop).
    func received(_ datagram: Datagram, on socket: ICEAgent.Socket) {
        guard let source = TransportAddress(datagram.source) else { return }
        let now = seconds(datagram.arrival)
        feed(datagram) { agent in datagram.data.withUnsafeReadableBytes { agent.receive($0, from: source, on: socket, now: now) } }
    }

    /// Gives the agent what arrived: its events first, then the media it let through, in order.
    private func feed(_ datagram: Datagram, _ receive: (inout ICEAgent) -> ICEAgent.Inbound) {
        let (actions, media, receiver, delivers) = state.withLock {
            state -> ([ICEAgent.Output], Datagram?, (@Sendable (Datagram) -> Void)?, Bool) in
            let inbound = receive(&state.agent)
            let actions = takeOutputs(&state)
            var media: Datagram?
            switch inbound {
            case .consumed:
                break
            case .media:
                media = datagram
            case .relayedMedia(let payload):
                media = Datagram(data: ByteBuffer(bytes: payload), source: datagram.source, arrival: datagram.arrival)
            }
            if let arrived = media, !state.closed {
                if !state.mediaStarted {
                    state.mediaStarted = true
                    state.outbox.append(.mediaStarted(arrived.arrival))
                }
                // Without a receiver the media keeps its place among the events.
                if state.mediaReceiver == nil {
                    state.outbox.append(.media(arrived))
                    media = nil
                }
            } else {
                media = nil
            }
            arm(&state)
            return (actions, media, state.mediaReceiver, claimDelivery(&state))
        }
        perform(actions)
        if delivers { drainOutbox() }
        if let media, let receiver { receiver(media) }
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
