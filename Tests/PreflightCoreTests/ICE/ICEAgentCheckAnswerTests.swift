import PreflightCore
import Testing

/// The agent answers its peer's checks (RFC 8445 §7.3): the edge, an ICE-lite agent, asks the
/// client's consent with one before it sends a probe's downlink (RFC 7675), so the answer must be
/// exact, and a check that does not authenticate must get nothing back.
@Suite struct ICEAgentCheckAnswerTests {
    /// A connected agent on the fake clock.
    static func connected() throws -> ICEAgentHarness {
        var harness = ICEAgentHarness()
        harness.gather()
        try harness.connect()
        harness.run(until: 0.5)
        #expect(harness.firstEvent { if case .connected = $0 { true } else { false } } != nil)
        return harness
    }

    /// A check from the peer: USERNAME `clientUfrag:edgeUfrag`, signed with `password`.
    static func check(
        username: String = "ufrag:edgeufrag", password: String = "password-0123456789ab", fingerprint: Bool = true,
        transactionID: STUNTransactionID = .random()
    ) throws -> [UInt8] {
        try STUNMessage(
            type: .bindingRequest, transactionID: transactionID,
            attributes: [.username(username), .priority(1_845_501_695), .iceControlled(42)]
        ).encoded(integrityKey: STUNIntegrityKey(Array(password.utf8)), fingerprint: fingerprint)
    }

    @Test func aValidCheckIsAnsweredOnItsPathWithItsSourceSignedWithTheAgentsPassword() throws {
        var harness = try Self.connected()
        let before = harness.transmitted.count
        let transactionID = STUNTransactionID.random()
        #expect(harness.deliver(try Self.check(transactionID: transactionID)) == .consumed)
        let sent = harness.transmitted[before...]
        try #require(sent.count == 1, "\(sent.count) datagrams sent for one check")
        let answer = try #require(sent.first)
        #expect(answer.transport == .udp(.ipv4, to: ICEAgentHarness.remoteHost))
        let message = try STUNMessage(decoding: answer.bytes)
        #expect(message.type == .bindingSuccess)
        #expect(message.transactionID == transactionID)
        #expect(message.xorMappedAddress == ICEAgentHarness.remoteHost)
        try message.verifyIntegrity(key: STUNIntegrityKey(Array("password-0123456789ab".utf8)))
        try message.verifyFingerprint()
        #expect(harness.agent.checksAnswered == 1)
    }

    /// The edge's CONSENT-NONCE comes back in the answer, under the integrity; a longer one than
    /// a nonce is not echoed (the agent reflects nothing large).
    @Test func theConsentNonceIsEchoed() throws {
        var harness = try Self.connected()
        let key = STUNIntegrityKey(Array("password-0123456789ab".utf8))
        for (nonce, echoed) in [(Array(repeating: UInt8(7), count: 16), true), (Array(repeating: UInt8(9), count: 33), false)] {
            let before = harness.transmitted.count
            let request = try STUNMessage(
                type: .bindingRequest,
                attributes: [.username("ufrag:edgeufrag"), .priority(1), .unknown(type: STUNAttributeType.consentNonce.rawValue, value: nonce[...])]
            ).encoded(integrityKey: key, fingerprint: true)
            harness.deliver(request)
            let answer = try STUNMessage(decoding: try #require(harness.transmitted[before...].first).bytes)
            let values = answer.attributes.compactMap { attribute -> ArraySlice<UInt8>? in
                if case .unknown(let type, let value) = attribute, type == STUNAttributeType.consentNonce.rawValue { value } else { nil }
            }
            #expect(values == (echoed ? [nonce[...]] : []))
            try answer.verifyIntegrity(key: key)
        }
    }

    /// The source the answer reflects is the one the check came from, wherever that is: a peer
    /// behind a NAT learns its mapped address, and the answer goes back there.
    @Test func theAnswerGoesToTheChecksSource() throws {
        var harness = try Self.connected()
        let before = harness.transmitted.count
        let elsewhere = TransportAddress(ipv4: 198, 18, 0, 77, port: 9999)
        harness.deliver(try Self.check(), from: elsewhere)
        let answer = try #require(harness.transmitted[before...].first)
        #expect(answer.transport == .udp(.ipv4, to: elsewhere))
        #expect(try STUNMessage(decoding: answer.bytes).xorMappedAddress == elsewhere)
    }

    enum Bad: String, CaseIterable, CustomTestStringConvertible {
        case wrongPassword, swappedUsername, anotherClientsUfrag, noFingerprint, noUsername
        var testDescription: String { rawValue }
    }

    /// A check that does not authenticate with the agent's own credentials gets no answer at all.
    @Test(arguments: Bad.allCases)
    func aCheckThatDoesNotAuthenticateIsDropped(_ bad: Bad) throws {
        var harness = try Self.connected()
        let before = harness.transmitted.count
        let bytes: [UInt8] =
            switch bad {
            case .wrongPassword: try Self.check(password: "another-password-01234")
            case .swappedUsername: try Self.check(username: "edgeufrag:ufrag")
            case .anotherClientsUfrag: try Self.check(username: "other:edgeufrag")
            case .noFingerprint: try Self.check(fingerprint: false)
            case .noUsername:
                try STUNMessage(type: .bindingRequest, attributes: [.priority(1)])
                    .encoded(integrityKey: STUNIntegrityKey(Array("password-0123456789ab".utf8)), fingerprint: true)
            }
        #expect(harness.deliver(bytes) == .consumed)
        #expect(harness.transmitted.count == before, "\(bad): answered")
        #expect(harness.agent.checksAnswered == 0)
    }

    /// Before the agent knows its peer (no `connect` yet) nothing is answered.
    @Test func nothingIsAnsweredBeforeThePeerIsKnown() throws {
        var harness = ICEAgentHarness()
        harness.gather()
        let before = harness.transmitted.count
        harness.deliver(try Self.check())
        #expect(harness.transmitted.count == before)
    }
}
