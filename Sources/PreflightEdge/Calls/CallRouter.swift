import NIOCore
import PreflightCore
import Synchronization

/// The calls between clients on one edge: the registrar (identity → its registered sessions),
/// the `dial` calls ringing or bridged, and which sessions are busy. Sessions call in from their
/// own loops; what concerns another session is posted to that session's queue as a
/// ``Notice``, so every session's state keeps its single owner. Everything here is under one
/// lock and never awaits.
///
/// Several devices of one identity ring together; the first `accept` wins and the others get a
/// `cancel` ("answered elsewhere"). A session is busy while it is a party of a call (the caller,
/// or the callee that answered); a registered session rings for at most
/// ``maximumOffersPerSession`` calls at once. A caller invites, and a callee is rung, at the
/// rates of ``CallLimits`` (token buckets in bounded tables, ``SourceRateLimiter``).
final class CallRouter: Sendable {
    /// What happened to a session's call elsewhere: posted to the session's queue.
    enum Notice: Sendable {
        /// A call rings on this (registered) session.
        case incoming(SignalingMessage.Incoming)
        /// An offered call stopped ringing here.
        case cancelled(SignalingMessage.Cancel)
        /// The callee answered the caller's call.
        case answered(callSid: String)
        /// The other party ended the call: `code` when it ended with an error.
        case ended(callSid: String, reason: String, code: PreflightError.Code?)
        /// The other party sent a user-defined message.
        case message(SignalingMessage.Message)
        /// The caller's edge decided this session's pending `accept` of a call from another edge.
        case acceptDecided(callSid: String, won: Bool)
    }

    /// What became of a device's `accept`.
    enum AcceptOutcome: Sendable, Equatable {
        /// The device has the call.
        case won
        /// The call no longer rings there (cancelled, answered elsewhere).
        case lost
        /// The call is another edge's: that edge decides (``Notice/acceptDecided(callSid:won:)``).
        case pending
    }

    /// A session that takes part in calls.
    struct Party: Sendable {
        let sessionId: String
        let account: String
        let identity: String
        /// Where its notices go (its session's queue).
        let notices: any SessionNoticeSink
    }

    struct Call {
        let callSid: String
        let caller: Party
        /// The codec both legs carry: the caller's, chosen from its invite.
        let format: AudioPayloadFormat
        var ringing: [String: Party]
        var callee: Party?
        var ufrags: [String: String] = [:]
        /// Devices here whose `accept` of a call from another edge waits for that edge's decision.
        var pendingAccepts: [String: Party] = [:]
        /// The call's trunk to the other party's edge, when it is on another edge.
        var trunk: TrunkPlan?

        /// A call placed on another edge, ringing here: that edge decides who gets it.
        var isFromAnotherEdge: Bool { caller.notices is RemoteEdgeParty }
    }

    struct State {
        /// account + identity → session id → the registered session.
        var registrations: [String: [String: Party]] = [:]
        var calls: [String: Call] = [:]
        /// Session id → the call it is a party of.
        var busy: [String: String] = [:]
        /// Session id → calls ringing on it.
        var offers: [String: Set<String>] = [:]
        /// account + identity → the caller's invites.
        var callers: SourceRateLimiter<String>
        /// account + identity → the callee's rings.
        var callees: SourceRateLimiter<String>
    }

    /// Calls that may ring on one registered session at once; a further call finds it busy.
    static let maximumOffersPerSession = 4

    let state: Mutex<State>
    let media: MediaService
    /// The other edges sharing this edge's database, when there are any.
    let cluster: EdgeCluster?

    init(media: MediaService, limits: CallLimits = CallLimits(), cluster: EdgeCluster? = nil) {
        self.media = media
        self.cluster = cluster
        state = Mutex(State(
            callers: SourceRateLimiter(rate: limits.callerInviteRate, burst: limits.callerInviteBurst, capacity: limits.trackedInviteParties),
            callees: SourceRateLimiter(rate: limits.calleeRingRate, burst: limits.calleeRingBurst, capacity: limits.trackedInviteParties)))
    }

    /// Calls ringing or bridged now.
    var callCount: Int { state.withLock { $0.calls.count } }

    static func key(_ account: String, _ identity: String) -> String { account + "\u{0}" + identity }

    /// A rate for a message: whole numbers without a fraction (`1`, not `1.0`).
    private static func figure(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    // MARK: Registrar

    /// Rings `party` for calls to its identity from now on.
    func register(_ party: Party) {
        state.withLock { $0.registrations[Self.key(party.account, party.identity), default: [:]][party.sessionId] = party }
        cluster?.announceRegistered(party)
    }

    /// Whether any device of the identity is registered here.
    func isRegistered(account: String, identity: String) -> Bool {
        state.withLock { !($0.registrations[Self.key(account, identity)]?.isEmpty ?? true) }
    }

    // MARK: Calls

    /// Rings every registered, free device of `identity` for a call from `caller` that carries
    /// `format` (the `incoming` names it: a device must accept with it). The caller's invite
    /// counts first, whatever comes of it; the callee's ring only when devices would ring.
    /// - Parameter now: seconds on a monotonic clock, for the rate limits.
    /// - Throws: 70108 when the caller invites too often, 31480 when no device is registered,
    ///   31486 when every one is busy, 70108 when the callee is rung too often.
    func dial(
        callSid: String, from caller: Party, identity: String, to: String, params: [String: String], format: AudioPayloadFormat,
        at now: Double
    ) throws(PreflightError) {
        try state.withLock { state throws(PreflightError) in
            guard state.callers.allow(Self.key(caller.account, caller.identity), at: now) else {
                throw PreflightError(
                    code: .inviteRateLimited,
                    message: "call: this identity invites more often than \(Self.figure(state.callers.rate)) a second (bursts of \(Self.figure(state.callers.burst))); nothing rang")
            }
            let devices = state.registrations[Self.key(caller.account, identity)]?.values.filter { $0.sessionId != caller.sessionId } ?? []
            // Each other edge with devices of the identity rings as one device: it rings its own
            // and answers for them (busy ones included: it declines then).
            let remote = cluster?.edges(registering: caller.account, identity: identity) ?? []
            let trunk = remote.isEmpty ? nil : TrunkPlan.caller(callSid: callSid)
            let offer = trunk.flatMap { plan in cluster?.trunkAddress.flatMap(ClusterMessage.TrunkOffer.text).map { plan.offer(address: $0) } }
            let edges = remote.compactMap { edge in
                cluster.map { cluster in
                    Party(
                        sessionId: RemoteEdgeParty.groupSession(edge), account: caller.account, identity: identity,
                        notices: RemoteEdgeParty(
                            edge: edge, session: RemoteEdgeParty.groupSession(edge), cluster: cluster,
                            invite: .init(callerSession: caller.sessionId, account: caller.account, identity: identity, trunk: offer)))
                }
            }
            guard !devices.isEmpty || !edges.isEmpty else {
                throw PreflightError(code: .calleeUnavailable, message: "call: \(UntrustedText.quoted(to)) has no registered device")
            }
            let free = devices.filter {
                state.busy[$0.sessionId] == nil && (state.offers[$0.sessionId]?.count ?? 0) < Self.maximumOffersPerSession
            } + edges
            guard !free.isEmpty else {
                throw PreflightError(code: .calleeBusy, message: "call: every device of \(UntrustedText.quoted(to)) is busy")
            }
            guard state.callees.allow(Self.key(caller.account, identity), at: now) else {
                throw PreflightError(
                    code: .inviteRateLimited,
                    message: "call: \(UntrustedText.quoted(to)) is rung more often than \(Self.figure(state.callees.rate)) a second (bursts of \(Self.figure(state.callees.burst))); nothing rang")
            }
            state.calls[callSid] = Call(
                callSid: callSid, caller: caller, format: format, ringing: Dictionary(uniqueKeysWithValues: free.map { ($0.sessionId, $0) }),
                trunk: trunk)
            state.busy[caller.sessionId] = callSid
            let incoming = SignalingMessage.Incoming(
                callSid: callSid, from: "client:\(caller.identity)", to: to, params: params, codec: format.name)
            for device in free {
                state.offers[device.sessionId, default: []].insert(callSid)
                device.notices.deliver(.incoming(incoming))
            }
        }
    }

    /// The codec of a call ringing or bridged here, `nil` for an unknown call.
    func format(of callSid: String) -> AudioPayloadFormat? {
        state.withLock { $0.calls[callSid]?.format }
    }

    /// The callee's `accept` on `party`: the first one wins the call. A call placed on another
    /// edge is that edge's to decide: the accept goes there, and the device waits.
    func accept(callSid: String, by party: Party) -> AcceptOutcome {
        state.withLock { state in
            guard var call = state.calls[callSid], call.callee == nil, call.ringing[party.sessionId] != nil,
                state.busy[party.sessionId] == nil, call.pendingAccepts[party.sessionId] == nil
            else { return .lost }
            if let caller = call.caller.notices as? RemoteEdgeParty {
                call.pendingAccepts[party.sessionId] = party
                state.calls[callSid] = call
                var message = caller.cluster.message(.accept, to: caller.edge, callSid: callSid, session: party.sessionId)
                message.trunk = caller.cluster.trunkAddress.flatMap(ClusterMessage.TrunkOffer.text).map { ClusterMessage.TrunkOffer(address: $0) }
                caller.cluster.send(message)
                return .pending
            }
            call.callee = party
            call.ringing.removeValue(forKey: party.sessionId)
            Self.cancel(&call, in: &state, reason: "answered elsewhere", code: nil)
            state.offers[party.sessionId]?.remove(callSid)
            state.busy[party.sessionId] = callSid
            state.calls[callSid] = call
            call.caller.notices.deliver(.answered(callSid: callSid))
            return .won
        }
    }

    /// The callee's `reject` on `sessionId`; when no device rings any more the caller gets 31603.
    func reject(callSid: String, by sessionId: String) {
        state.withLock { state in
            state.offers[sessionId]?.remove(callSid)
            guard var call = state.calls[callSid], call.callee == nil, call.ringing.removeValue(forKey: sessionId) != nil else { return }
            call.pendingAccepts.removeValue(forKey: sessionId)
            state.calls[callSid] = call
            guard call.ringing.isEmpty else { return }
            Self.end(callSid, in: &state)
            call.caller.notices.deliver(.ended(callSid: callSid, reason: "the callee rejected the call", code: .callRejected))
        }
    }

    /// The caller's ring timer ran out: the call stops ringing everywhere.
    /// - Returns: whether the call was still unanswered (the caller ends it with 31480).
    func ringTimedOut(callSid: String) -> Bool {
        state.withLock { state in
            guard var call = state.calls[callSid], call.callee == nil else { return false }
            Self.cancel(&call, in: &state, reason: "no answer", code: .calleeUnavailable)
            Self.end(callSid, in: &state)
            return true
        }
    }

    /// A party ended the call (a hangup, its session's end): the other party is told, a call
    /// still ringing stops ringing.
    /// - Parameter code: the error the call ends with for the other party, if any.
    func hangUp(callSid: String, by sessionId: String, reason: String, code: PreflightError.Code?) {
        let ufrags = state.withLock { state -> [String] in
            guard var call = state.calls[callSid] else { return [] }
            if call.caller.sessionId == sessionId {
                Self.cancel(&call, in: &state, reason: "the caller hung up", code: nil)
                call.callee?.notices.deliver(.ended(callSid: callSid, reason: reason, code: code))
            } else if call.callee?.sessionId == sessionId {
                call.caller.notices.deliver(.ended(callSid: callSid, reason: reason, code: code))
            } else {
                return []
            }
            Self.end(callSid, in: &state)
            return Array(call.ufrags.values) + (call.trunk?.isOpen == true ? [call.trunk?.legUfrag ?? ""] : [])
        }
        if ufrags.count == 2 { media.unlink(ufrags[0], ufrags[1]) }
        // A trunk leg goes with its call (the local party's leg lingers with its session).
        for ufrag in ufrags where ufrag.hasPrefix(TrunkPlan.legPrefix) { media.removeSession(localUfrag: ufrag) }
    }

    /// Hands a user-defined message to the other party of a connected call.
    /// - Returns: `false` when `sessionId` is not a party of the call or the call has no callee yet.
    func forward(_ message: SignalingMessage.Message, from sessionId: String) -> Bool {
        state.withLock { state in
            guard let call = state.calls[message.callSid], let callee = call.callee else { return false }
            if call.caller.sessionId == sessionId {
                callee.notices.deliver(.message(message))
            } else if callee.sessionId == sessionId {
                call.caller.notices.deliver(.message(message))
            } else {
                return false
            }
            return true
        }
    }

    /// A party's media session is open: the bridge links once both are.
    func attachMedia(callSid: String, sessionId: String, ufrag: String) {
        let pair = state.withLock { state -> [String]? in
            guard var call = state.calls[callSid], call.caller.sessionId == sessionId || call.callee?.sessionId == sessionId
            else { return nil }
            call.ufrags[sessionId] = ufrag
            call.trunk?.localUfrag = ufrag
            state.calls[callSid] = call
            return call.ufrags.count == 2 ? Array(call.ufrags.values) : nil
        }
        if let pair { media.link(pair[0], pair[1]) }
        openTrunk(callSid: callSid)
    }

    /// A session ended: it is unregistered, stops ringing, and a call it was a party of ends for
    /// the other party with 31005 (the call's media was lost with it).
    func sessionEnded(_ party: Party) {
        let wasRegistered = state.withLock { $0.registrations[Self.key(party.account, party.identity)]?[party.sessionId] != nil }
        if wasRegistered { cluster?.announceUnregistered(party) }
        let active = state.withLock { state -> String? in
            state.registrations[Self.key(party.account, party.identity)]?.removeValue(forKey: party.sessionId)
            if state.registrations[Self.key(party.account, party.identity)]?.isEmpty == true {
                state.registrations.removeValue(forKey: Self.key(party.account, party.identity))
            }
            for callSid in state.offers.removeValue(forKey: party.sessionId) ?? [] {
                guard var call = state.calls[callSid], call.callee == nil else { continue }
                call.ringing.removeValue(forKey: party.sessionId)
                call.pendingAccepts.removeValue(forKey: party.sessionId)
                state.calls[callSid] = call
                if call.ringing.isEmpty {
                    Self.end(callSid, in: &state)
                    call.caller.notices.deliver(.ended(
                        callSid: callSid, reason: "no device of the callee is left to ring", code: .calleeUnavailable))
                }
            }
            return state.busy[party.sessionId]
        }
        if let active {
            hangUp(callSid: active, by: party.sessionId, reason: "the other party's connection was lost", code: .connectionError)
        }
    }

    /// Tells every device still ringing for `call` that it stopped.
    static func cancel(_ call: inout Call, in state: inout State, reason: String, code: PreflightError.Code?) {
        let cancel = SignalingMessage.Cancel(callSid: call.callSid, reason: reason, code: code?.rawValue)
        for device in call.ringing.values {
            state.offers[device.sessionId]?.remove(cancel.callSid)
            device.notices.deliver(.cancelled(cancel))
        }
        call.ringing.removeAll()
        call.pendingAccepts.removeAll()
    }

    /// Forgets a call and frees its parties.
    static func end(_ callSid: String, in state: inout State) {
        guard let call = state.calls.removeValue(forKey: callSid) else { return }
        state.busy.removeValue(forKey: call.caller.sessionId)
        if let callee = call.callee { state.busy.removeValue(forKey: callee.sessionId) }
        for device in call.ringing.values { state.offers[device.sessionId]?.remove(callSid) }
    }
}
