import NIOCore
import PreflightCore
import Synchronization

/// A party of a call on another edge, as this edge's router sees it: what the router tells it
/// goes to that edge as a ``ClusterMessage``.
///
/// On the caller's edge, each other edge with devices of the callee rings as one device (its
/// session is ``groupSession(_:)``) until one of its devices accepts; the callee is then that
/// device. On a callee's edge, the caller is the remote party. The caller's edge decides who
/// gets the call, so the first accept wins everywhere.
final class RemoteEdgeParty: SessionNoticeSink {
    /// What an `invite` to the edge needs beside the `incoming` itself.
    struct Invite: Sendable {
        let callerSession: String
        let account: String
        let identity: String
        /// The call's trunk: the caller's edge's address, keys and SSRCs.
        let trunk: ClusterMessage.TrunkOffer?
    }

    let edge: String
    /// The party's session on that edge, or its ``groupSession(_:)`` while it only rings.
    let session: String
    let cluster: EdgeCluster
    let invite: Invite?

    init(edge: String, session: String, cluster: EdgeCluster, invite: Invite? = nil) {
        self.edge = edge
        self.session = session
        self.cluster = cluster
        self.invite = invite
    }

    /// The session id that stands for all of `edge`'s devices while they ring.
    static func groupSession(_ edge: String) -> String { "edge:" + edge }

    func deliver(_ notice: CallRouter.Notice) {
        switch notice {
        case .incoming(let incoming):
            guard let invite else { return }
            var message = cluster.message(.invite, to: edge, callSid: incoming.callSid, session: invite.callerSession)
            message.account = invite.account
            message.identity = invite.identity
            message.incoming = incoming
            message.trunk = invite.trunk
            cluster.send(message)
        case .cancelled(let cancel):
            var message = cluster.message(.cancel, to: edge, callSid: cancel.callSid)
            message.reason = cancel.reason
            message.code = cancel.code
            cluster.send(message)
        case .ended(let callSid, let reason, let code):
            var message = cluster.message(.hangup, to: edge, callSid: callSid)
            message.reason = reason
            message.code = code?.rawValue
            cluster.send(message)
        case .message(let userMessage):
            var message = cluster.message(.message, to: edge, callSid: userMessage.callSid)
            message.userMessage = userMessage
            cluster.send(message)
        case .answered, .acceptDecided:
            // Decided on the caller's edge: never told to a remote party.
            break
        }
    }

    func deliver(_ notice: SessionMediaNotice) {}
}

/// A call's trunk as its router plans it: the keys and SSRCs of both directions, the other
/// edge's address once known, the local party's leg once open; the trunk leg opens when all are
/// there (``CallRouter/openTrunk(callSid:)``).
struct TrunkPlan: Sendable {
    static let legPrefix = "trunk-"

    let legUfrag: String
    let send: SRTPKeyingMaterial
    let receive: SRTPKeyingMaterial
    let sendSSRC: UInt32
    let receiveSSRC: UInt32
    var peer: SocketAddress?
    var localUfrag: String?
    var isOpen = false

    /// The caller's edge's plan: new keys and SSRCs for the call.
    static func caller(callSid: String) -> TrunkPlan {
        var random = SystemRandomNumberGenerator()
        let sendSSRC = random.next() as UInt32
        var receiveSSRC = random.next() as UInt32
        while receiveSSRC == sendSSRC { receiveSSRC = random.next() }
        return TrunkPlan(
            legUfrag: legPrefix + callSid, send: .random(), receive: .random(), sendSSRC: sendSSRC, receiveSSRC: receiveSSRC)
    }

    /// The offer of an invite: this edge's address, both keys and SSRCs.
    func offer(address: String) -> ClusterMessage.TrunkOffer {
        ClusterMessage.TrunkOffer(
            address: address, callerKey: .init(send), calleeKey: .init(receive), callerSSRC: sendSSRC, calleeSSRC: receiveSSRC)
    }

    /// The callee's edge's plan, from an invite's offer: the caller's key is what it receives.
    static func callee(callSid: String, offer: ClusterMessage.TrunkOffer) -> TrunkPlan? {
        guard let peer = offer.socketAddress(), let callerKey = try? offer.callerKey?.material(),
            let calleeKey = try? offer.calleeKey?.material(), let callerSSRC = offer.callerSSRC, let calleeSSRC = offer.calleeSSRC
        else { return nil }
        return TrunkPlan(
            legUfrag: legPrefix + callSid, send: calleeKey, receive: callerKey, sendSSRC: calleeSSRC, receiveSSRC: callerSSRC, peer: peer)
    }
}

extension CallRouter {
    /// Opens a call's trunk leg and links it to the local party's leg, once the other edge's
    /// address and the local leg are both known.
    func openTrunk(callSid: String) {
        let ready = state.withLock { state -> (TrunkPlan, AudioPayloadFormat)? in
            guard var call = state.calls[callSid], var plan = call.trunk, !plan.isOpen, plan.peer != nil, plan.localUfrag != nil,
                call.callee != nil
            else { return nil }
            plan.isOpen = true
            call.trunk = plan
            state.calls[callSid] = call
            return (plan, call.format)
        }
        guard let (plan, format) = ready, let peer = plan.peer, let local = plan.localUfrag else { return }
        do throws(PreflightError) {
            try media.addTrunkLeg(
                plan.legUfrag, peer: peer, srtp: (receive: plan.receive, send: plan.send), sendSSRC: plan.sendSSRC,
                receiveSSRC: plan.receiveSSRC, format: format)
            media.link(local, plan.legUfrag)
        } catch {
            hangUp(
                callSid: callSid, by: state.withLock { $0.calls[callSid]?.callee?.sessionId } ?? "", reason: "the call's trunk could not open",
                code: .connectionError)
        }
    }

    /// Edges found dead (their heartbeat stopped): every call with a party there ends for the
    /// party here with 31005, and those edges stop ringing for calls placed here.
    func edgesDied(_ edges: Set<String>) {
        guard !edges.isEmpty else { return }
        let reason = "the other party's edge stopped"
        let ended = state.withLock { state -> [(callSid: String, party: String)] in
            var ended: [(callSid: String, party: String)] = []
            for (callSid, var call) in state.calls {
                if let edge = (call.caller.notices as? RemoteEdgeParty)?.edge, edges.contains(edge) {
                    ended.append((callSid, call.caller.sessionId))
                } else if let callee = call.callee, let edge = (callee.notices as? RemoteEdgeParty)?.edge, edges.contains(edge) {
                    ended.append((callSid, callee.sessionId))
                } else if call.callee == nil {
                    for edge in edges { call.ringing.removeValue(forKey: RemoteEdgeParty.groupSession(edge)) }
                    state.calls[callSid] = call
                    if call.ringing.isEmpty {
                        Self.end(callSid, in: &state)
                        call.caller.notices.deliver(.ended(callSid: callSid, reason: reason, code: .calleeUnavailable))
                    }
                }
            }
            return ended
        }
        for (callSid, party) in ended { hangUp(callSid: callSid, by: party, reason: reason, code: .connectionError) }
    }

    /// A message from another edge about a call (registrations are the cluster's).
    func receive(_ message: ClusterMessage) {
        guard let cluster, let callSid = message.callSid else { return }
        switch message.kind {
        case .invite:
            ringFromAnotherEdge(message, cluster: cluster)
        case .accept:
            decideAccept(
                callSid: callSid, from: message.from, session: message.session ?? "", peer: message.trunk?.socketAddress(), cluster: cluster)
        case .accepted:
            applyDecision(callSid: callSid, session: message.session ?? "", won: message.won == true, from: message.from, cluster: cluster)
        case .cancel:
            state.withLock { state in
                guard var call = state.calls[callSid], call.isFromAnotherEdge, (call.caller.notices as? RemoteEdgeParty)?.edge == message.from
                else { return }
                Self.cancel(&call, in: &state, reason: message.reason ?? "cancelled", code: message.code.map { PreflightError.Code(rawValue: $0) })
                if call.callee == nil { Self.end(callSid, in: &state) } else { state.calls[callSid] = call }
            }
        case .declined, .hangup:
            endFromAnotherEdge(message, callSid: callSid)
        case .message:
            guard let userMessage = message.userMessage else { return }
            state.withLock { state in
                guard let call = state.calls[callSid], let callee = call.callee else { return }
                if (call.caller.notices as? RemoteEdgeParty)?.edge == message.from {
                    callee.notices.deliver(.message(userMessage))
                } else if (callee.notices as? RemoteEdgeParty)?.edge == message.from {
                    call.caller.notices.deliver(.message(userMessage))
                }
            }
        case .registered, .unregistered:
            break
        }
    }

    /// A call placed on another edge rings this edge's free devices of its callee; when there
    /// are none, the caller's edge is told at once (31480, or 31486 when all are busy).
    private func ringFromAnotherEdge(_ message: ClusterMessage, cluster: EdgeCluster) {
        guard let incoming = message.incoming, let callerSession = message.session, let account = message.account,
            let identity = message.identity, let format = incoming.codec.flatMap({ AudioPayloadFormat.firstKnown(of: [$0]) })
        else { return }
        guard let offer = message.trunk, let plan = TrunkPlan.callee(callSid: incoming.callSid, offer: offer) else { return }
        let caller = Party(
            sessionId: callerSession, account: account, identity: String(incoming.from.dropFirst("client:".count)),
            notices: RemoteEdgeParty(edge: message.from, session: callerSession, cluster: cluster))
        let refusal = state.withLock { state -> PreflightError.Code? in
            guard state.calls[incoming.callSid] == nil else { return nil }
            let devices = state.registrations[Self.key(account, identity)]?.values.map { $0 } ?? []
            guard !devices.isEmpty else { return .calleeUnavailable }
            let free = devices.filter {
                state.busy[$0.sessionId] == nil && (state.offers[$0.sessionId]?.count ?? 0) < Self.maximumOffersPerSession
            }
            guard !free.isEmpty else { return .calleeBusy }
            state.calls[incoming.callSid] = Call(
                callSid: incoming.callSid, caller: caller, format: format,
                ringing: Dictionary(uniqueKeysWithValues: free.map { ($0.sessionId, $0) }), trunk: plan)
            for device in free {
                state.offers[device.sessionId, default: []].insert(incoming.callSid)
                device.notices.deliver(.incoming(incoming))
            }
            return nil
        }
        if let refusal {
            var declined = cluster.message(.declined, to: message.from, callSid: incoming.callSid)
            declined.code = refusal.rawValue
            declined.reason = refusal == .calleeBusy ? "every device of the callee is busy" : "no device of the callee is registered"
            cluster.send(declined)
        }
    }

    /// On the caller's edge: a device of another edge accepted. The first accept wins; the
    /// other devices, here and on other edges, are cancelled.
    private func decideAccept(callSid: String, from edge: String, session: String, peer: SocketAddress?, cluster: EdgeCluster) {
        let won = state.withLock { state -> Bool in
            guard var call = state.calls[callSid], call.callee == nil, !call.isFromAnotherEdge, let peer,
                call.ringing.removeValue(forKey: RemoteEdgeParty.groupSession(edge)) != nil
            else { return false }
            call.trunk?.peer = peer
            call.callee = Party(
                sessionId: session, account: call.caller.account, identity: "",
                notices: RemoteEdgeParty(edge: edge, session: session, cluster: cluster))
            Self.cancel(&call, in: &state, reason: "answered elsewhere", code: nil)
            state.calls[callSid] = call
            call.caller.notices.deliver(.answered(callSid: callSid))
            return true
        }
        var decision = cluster.message(.accepted, to: edge, callSid: callSid, session: session)
        decision.won = won
        cluster.send(decision)
        if won { openTrunk(callSid: callSid) }
    }

    /// On a callee's edge: the caller's edge decided a device's accept.
    private func applyDecision(callSid: String, session: String, won: Bool, from edge: String, cluster: EdgeCluster) {
        let gone = state.withLock { state -> Bool in
            guard var call = state.calls[callSid], (call.caller.notices as? RemoteEdgeParty)?.edge == edge else { return won }
            guard let party = call.pendingAccepts.removeValue(forKey: session) else {
                state.calls[callSid] = call
                return won
            }
            call.ringing.removeValue(forKey: session)
            state.offers[session]?.remove(callSid)
            if won {
                call.callee = party
                Self.cancel(&call, in: &state, reason: "answered elsewhere", code: nil)
                state.busy[session] = callSid
            }
            if won || !call.ringing.isEmpty || !call.pendingAccepts.isEmpty {
                state.calls[callSid] = call
            } else {
                Self.end(callSid, in: &state)
            }
            party.notices.deliver(.acceptDecided(callSid: callSid, won: won))
            return false
        }
        if gone {
            // The device that won is gone: the call ends for the caller.
            var hangup = cluster.message(.hangup, to: edge, callSid: callSid)
            hangup.reason = "the callee's connection was lost"
            hangup.code = PreflightError.Code.connectionError.rawValue
            cluster.send(hangup)
        }
    }

    /// Another edge ended its part of a call: its devices declined (or all rejected), or its
    /// party hung up.
    private func endFromAnotherEdge(_ message: ClusterMessage, callSid: String) {
        let code = message.code.map { PreflightError.Code(rawValue: $0) }
        let reason = message.reason ?? "the other party hung up"
        let party = state.withLock { state -> String? in
            guard var call = state.calls[callSid] else { return nil }
            if let callee = call.callee, (callee.notices as? RemoteEdgeParty)?.edge == message.from {
                return callee.sessionId
            }
            if (call.caller.notices as? RemoteEdgeParty)?.edge == message.from {
                return call.caller.sessionId
            }
            guard call.callee == nil, call.ringing.removeValue(forKey: RemoteEdgeParty.groupSession(message.from)) != nil else { return nil }
            state.calls[callSid] = call
            if call.ringing.isEmpty {
                Self.end(callSid, in: &state)
                call.caller.notices.deliver(.ended(callSid: callSid, reason: reason, code: code ?? .callRejected))
            }
            return nil
        }
        if let party { hangUp(callSid: callSid, by: party, reason: reason, code: code) }
    }
}
