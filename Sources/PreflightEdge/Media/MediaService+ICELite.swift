import NIOCore
import PreflightCore
import Synchronization

extension MediaService {
    // MARK: STUN

    /// What to do with a STUN datagram.
    enum CheckOutcome {
        /// A valid check (or, with `check` false, a plain Binding request): send this success response.
        case answer([UInt8], check: Bool)
        /// A check to refuse with this error code (RFC 8489 §9.1.3: 400 without USERNAME, 401 for
        /// an unknown username or bad integrity; 403 from one address more than the session may
        /// have verified).
        case refuse(code: Int, transactionID: STUNTransactionID)
        /// Not a Binding request, or not STUN after all (bad FINGERPRINT): drop silently.
        case ignore
        /// A probe client's answer to the edge's consent request, taken: nothing goes back.
        case consumed
    }

    func handleSTUN(_ datagram: ByteBuffer, from source: SocketAddress, key: SourceKey) -> ByteBuffer? {
        let outcome = datagram.withUnsafeReadableBytes { check($0, from: source, key: key) }
        let reply: [UInt8]?
        switch outcome {
        case .answer(let response, _):
            reply = response
        case .refuse(let code, let transactionID):
            // No MESSAGE-INTEGRITY on the error: the edge cannot trust the key the request claims.
            let refusal = STUNMessage(
                type: STUNMessageType(method: .binding, class: .errorResponse), transactionID: transactionID,
                attributes: [.errorCode(STUNErrorCode(code: code, reason: Self.reason(code)))])
            reply = try? refusal.encoded(fingerprint: true)
        case .ignore:
            countMalformed()
            return nil
        case .consumed:
            return nil
        }
        guard let reply else { return nil }
        // One answer per request, and no bigger than the request plus the allowance: a verified
        // address spends its budget, any other gets no more than that one datagram's worth.
        let allowed = state.withLock { state -> Bool in
            let sent: Bool
            if state.verified[key] != nil {
                sent = state.verified[key]?.budget.spend(bytes: reply.count) ?? false
            } else {
                sent = reply.count <= datagram.readableBytes + SendBudget.allowancePerDatagram
            }
            // Counted only once it goes out.
            switch outcome {
            case _ where !sent: state.counters.droppedOverBudget += 1
            case .answer(_, check: true): state.counters.checksAnswered += 1
            case .answer(_, check: false): state.counters.bindingsAnswered += 1
            case .refuse: state.counters.checksRefused += 1
            case .ignore, .consumed: break
            }
            return sent
        }
        return allowed ? ByteBuffer(bytes: reply) : nil
    }

    func check(_ buffer: UnsafeRawBufferPointer, from source: SocketAddress, key: SourceKey) -> CheckOutcome {
        guard let layout = try? STUNMessageLayout(parsing: buffer) else { return .ignore }
        if layout.fingerprintOffset != nil {
            guard (try? layout.verifyFingerprint(in: buffer)) != nil else { return .ignore }
        }
        if layout.type == STUNMessageType(method: .binding, class: .successResponse) {
            return takeConsent(layout, in: buffer, from: key) ? .consumed : .ignore
        }
        guard layout.type == STUNMessageType(method: .binding, class: .request) else { return .ignore }
        guard let usernameRange = layout.value(of: .username, in: buffer) else {
            // A plain Binding request (no USERNAME, no MESSAGE-INTEGRITY): the edge is a STUN
            // server for the client's server-reflexive candidate (RFC 8489 §12). Its answer
            // grants nothing: the source is not verified for media.
            guard layout.value(of: .messageIntegrity, in: buffer) == nil,
                layout.value(of: .messageIntegritySHA256, in: buffer) == nil
            else { return .refuse(code: 400, transactionID: layout.transactionID) }
            return reflect(layout.transactionID, from: source)
        }
        let username = String(decoding: buffer[usernameRange], as: UTF8.self)
        let parts = username.split(separator: ":", maxSplits: 1)
        let session = state.withLock { $0.sessions[parts.first.map(String.init) ?? ""] }
        guard let session, parts.count == 2, parts[1] == session.credentials.remoteUfrag,
            (try? layout.verifyIntegrity(key: session.key, in: buffer)) != nil
        else { return .refuse(code: 401, transactionID: layout.transactionID) }
        guard let mapped = Self.transportAddress(source) else {
            return .ignore
        }
        let nominated = layout.value(of: .useCandidate, in: buffer) != nil
        let response = STUNMessage(
            type: STUNMessageType(method: .binding, class: .successResponse), transactionID: layout.transactionID,
            attributes: [.xorMappedAddress(mapped)])
        guard let encoded = try? response.encoded(integrityKey: session.key, fingerprint: true) else { return .ignore }
        let limit = configuration.maximumAddressesPerSession
        let verified = state.withLock { state -> Bool in
            // The session may have ended while the response was built.
            guard let slot = state.sessions.slot(of: session.credentials.localUfrag) else { return true }
            let known = state.verified[key]
            if known?.session != slot {
                // A new address for this session (or one another session had verified).
                guard state.sessions.verifiedAddresses(in: slot) < limit else { return false }
                state.sessions.countVerifiedAddresses(in: slot, by: 1)
                if let before = known?.session { state.sessions.countVerifiedAddresses(in: before, by: -1) }
            }
            if let known {
                // Checked again, perhaps for another session: the budget and rate go on.
                state.verified[key] = VerifiedPeer(
                    ufrag: session.credentials.localUfrag, session: slot, budget: known.budget, rate: known.rate,
                    mayAskBeyondBudget: known.mayAskBeyondBudget)
            } else {
                // The budget starts with the check that verified the address.
                var peer = VerifiedPeer(ufrag: session.credentials.localUfrag, session: slot, rate: state.limiter.bucket(for: key))
                peer.budget.receive(bytes: buffer.count)
                state.verified[key] = peer
            }
            // As the lite agent, media goes to the pair the controlling client nominated
            // (RFC 8445 §8.2); ordinary checks and consent checks only verify their source.
            if nominated || state.sessions[session.credentials.localUfrag]?.peer == nil {
                state.sessions[session.credentials.localUfrag]?.setPeer(source)
            }
            return true
        }
        guard verified else { return .refuse(code: 403, transactionID: layout.transactionID) }
        return .answer(encoded, check: true)
    }

    /// A Binding success response: the answer of a probe's client to the edge's consent request
    /// (``ProbeConsent``) when it comes from the address asked, carries an outstanding request's
    /// transaction ID and CONSENT-NONCE, and verifies with the client's password; then consent is
    /// granted.
    /// - Returns: whether it was such an answer.
    private func takeConsent(_ layout: STUNMessageLayout, in buffer: UnsafeRawBufferPointer, from key: SourceKey) -> Bool {
        let now = self.now
        return state.withLock { state in
            guard let peer = state.verified[key], state.sessions.contains(peer.session),
                let probe = state.sessions[peer.session].probe, let nonce = probe.consent.nonce(awaitedFor: layout.transactionID, from: key),
                layout.value(of: .consentNonce, in: buffer, equals: nonce),
                (try? layout.verifyIntegrity(key: probe.clientKey, in: buffer)) != nil
            else { return false }
            state.sessions[peer.session].probe?.consent.grant(layout.transactionID, now: now)
            state.counters.consentAnswers += 1
            return true
        }
    }

    /// The reason phrase of an error response this edge sends.
    private static func reason(_ code: Int) -> String {
        switch code {
        case 400: "Bad Request"
        case 403: "Forbidden"
        default: "Unauthorized"
        }
    }

    /// The answer to a plain Binding request: XOR-MAPPED-ADDRESS and FINGERPRINT, no integrity.
    private func reflect(_ transactionID: STUNTransactionID, from source: SocketAddress) -> CheckOutcome {
        guard let mapped = Self.transportAddress(source) else {
            return .ignore
        }
        let response = STUNMessage(
            type: STUNMessageType(method: .binding, class: .successResponse), transactionID: transactionID,
            attributes: [.xorMappedAddress(mapped), .software("preflight-edge")])
        guard let encoded = try? response.encoded(fingerprint: true) else { return .ignore }
        return .answer(encoded, check: false)
    }

    /// `source` as a STUN transport address (for XOR-MAPPED-ADDRESS).
    private static func transportAddress(_ source: SocketAddress) -> TransportAddress? {
        TransportAddress(host: source.ipAddress ?? "", port: UInt16(clamping: source.port ?? 0))
    }
}
