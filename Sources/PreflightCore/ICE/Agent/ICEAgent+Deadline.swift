extension ICEAgent {
    /// When the agent next needs the time: the earliest of its timers (gathering retransmissions
    /// and deadline, TURN retransmissions, paced and retransmitted checks, the check timeout,
    /// consent checks, loss probes, and the disconnect and consent timeouts). The driver arms one timer for it
    /// and calls ``poll(now:)`` when it fires, and reads it again after every input: an input may
    /// bring it forward. `nil`: no timer is needed until the next input (not started, failed,
    /// closed).
    ///
    /// A time at or before `now` means "poll now"; after ``poll(now:)`` the deadline is always
    /// later than the `now` it was given, so a driver that follows it never spins.
    public var nextDeadline: Double? {
        var deadline: Double?
        func include(_ time: Double?) {
            guard let time else { return }
            deadline = deadline.map { min($0, time) } ?? time
        }
        switch phase {
        case .new, .failed, .closed:
            return nil
        case .gathering, .gathered, .checking, .connected:
            break
        }
        for server in servers {
            switch server.kind {
            case .stun(let gathering) where !server.done: include(gathering.nextRetransmit)
            case .turn(let client): include(client.nextDeadline)
            default: continue
            }
        }
        if phase == .gathering { include(gatheringDeadline) }
        guard phase == .checking || phase == .connected, let checkList, remoteParameters != nil else { return deadline }
        include(checkList.nextDeadline)
        if checkList.selected != nil { include(nextConsent) }
        if let probes = lossProbes, probes.remaining > 0 { include(probes.next) }
        if phase == .checking { include(checkDeadline) }
        if phase == .connected, watchesLiveness, let last = lastReceived {
            if disconnectedSince == nil {
                include(max(last + configuration.disconnectTimeout.inSeconds, livenessGraceEnds ?? -.infinity))
            } else if let consent = lastConsent {
                include(consent + configuration.consentTimeout.inSeconds)
            }
        }
        return deadline
    }
}
