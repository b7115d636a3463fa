import PreflightCore
import Testing

/// A TURN server played by the test: it answers the client's requests with challenges, errors
/// and successes signed with the long-term key of `user`/`pass` in realm `lab` (RFC 8489 §9.2).
struct FakeTURNServer {
    static let realm = "lab"
    static let credentials = STUNCredentials.longTerm(username: "user", realm: realm, password: "pass")
    static let relayed = TransportAddress(ipv4: 198, 18, 3, 2, port: 50_000)
    static let mapped = TransportAddress(ipv4: 198, 18, 0, 9, port: 41_000)

    /// `response` as received off the wire (so that its integrity can be checked).
    static func received(_ response: STUNMessage, signed: Bool) throws -> STUNMessage {
        if signed {
            return try STUNMessage(decoding: try response.encoded(integrityKey: try credentials.key(), fingerprint: true))
        }
        return try STUNMessage(decoding: try response.encoded(fingerprint: true))
    }

    /// An error response to `request` with `code`, carrying the realm and `nonce` for 401 and 438.
    static func error(to request: [UInt8], code: Int, nonce: String? = nil) throws -> STUNMessage {
        let original = try STUNMessage(decoding: request)
        var attributes: [STUNAttribute] = [.errorCode(STUNErrorCode(code: code, reason: "refused"))]
        if let nonce { attributes += [.realm(realm), .nonce(nonce)] }
        return try received(STUNMessage(
            type: STUNMessageType(method: original.type.method, class: .errorResponse), transactionID: original.transactionID,
            attributes: attributes), signed: false)
    }

    /// A success response to `request` with `attributes`, signed unless `signed` is false.
    static func success(to request: [UInt8], _ attributes: [STUNAttribute] = [], signed: Bool = true) throws -> STUNMessage {
        let original = try STUNMessage(decoding: request)
        return try received(STUNMessage(
            type: STUNMessageType(method: original.type.method, class: .successResponse), transactionID: original.transactionID,
            attributes: attributes), signed: signed)
    }

    /// A client that went through the 401 challenge and holds an allocation, with the time it
    /// was allocated at.
    static func allocatedClient(isStream: Bool = false) throws -> TURNClient {
        var client = TURNClient(username: "user", password: "pass", isStream: isStream)
        let first = client.allocate(now: 0)
        guard case .resend(let second) = client.handle(try error(to: first, code: 401, nonce: "n1"), now: 0.1) else {
            throw PreflightError(code: .invalidArgument, message: "no resend after the 401")
        }
        let event = client.handle(try success(to: second, [.xorRelayedAddress(relayed), .xorMappedAddress(mapped), .lifetime(600)]), now: 0.2)
        guard event == .allocated(relayed: relayed, mapped: mapped) else {
            throw PreflightError(code: .invalidArgument, message: "not allocated: \(event)")
        }
        return client
    }
}

/// ``TURNClient``'s state machine with the clock passed in: retransmissions, the long-term
/// credential exchange, refreshes and channels. No sockets, no waiting.
@Suite struct TURNClientTests {
    static let peer = TransportAddress(ipv4: 198, 18, 2, 2, port: 40_000)
    static let otherPeer = TransportAddress(ipv4: 198, 18, 2, 3, port: 40_000)

    // MARK: Retransmission (RFC 8489 §6.2.1 over UDP: RTO 500 ms, Rc 7, Rm 16)

    /// The instants the RFC's schedule sends at (after the first, at 0) and when it gives up.
    static func rfcSchedule() -> (resends: [Double], giveUp: Double) {
        let rto = 0.5
        let transmissions = 7
        let resends = (1..<transmissions).map { k in rto * (Double(1 << k) - 1) }
        return (resends, (resends.last ?? 0) + 16 * rto)
    }

    /// Polls `client` every millisecond from 0 to `end` and returns when it resent, and the
    /// events with their times.
    static func poll(_ client: inout TURNClient, until end: Double) -> (resent: [Double], events: [(Double, TURNClient.Event)]) {
        var resent: [Double] = []
        var events: [(Double, TURNClient.Event)] = []
        for tick in 1...Int(end * 1000) {
            let now = Double(tick) / 1000
            let due = client.retransmissions(now: now)
            resent += due.resend.map { _ in now }
            events += due.events.map { (now, $0) }
        }
        return (resent, events)
    }

    @Test func anUnansweredAllocateIsResentOnTheRFCScheduleThenFails() {
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        let request = client.allocate(now: 0)
        let schedule = Self.rfcSchedule()
        #expect(client.retransmissions(now: 0.499).resend.isEmpty)
        #expect(client.retransmissions(now: 0.5).resend == [request])  // the same bytes, same transaction
        var copy = TURNClient(username: "user", password: "pass", isStream: false)
        _ = copy.allocate(now: 0)
        let (resent, events) = Self.poll(&copy, until: schedule.giveUp + 5)
        #expect(resent.map { ($0 * 1000).rounded() } == schedule.resends.map { ($0 * 1000).rounded() })
        #expect(events.count == 1)
        #expect(events.first.map { ($0.0 * 1000).rounded() } == (schedule.giveUp * 1000).rounded())
        #expect(events.first?.1 == .failed(nil, "no answer to Allocate"))
        #expect(copy.state == .failed(nil, "no answer to Allocate"))
    }

    @Test func anUnansweredChannelBindFailsAndTakesItsPermission() throws {
        var client = try FakeTURNServer.allocatedClient()
        let requestBytes = client.channelBind(peer: Self.peer, now: 1)
        _ = try #require(requestBytes)
        let (_, events) = Self.poll(&client, until: 1 + Self.rfcSchedule().giveUp + 1)
        #expect(events.map(\.1) == [.channelBindFailed(peer: Self.peer, nil)])
        #expect(client.channels[Self.peer] == nil)
        // The allocation itself is untouched, and the next bind for the peer starts afresh.
        #expect(client.relayedAddress == FakeTURNServer.relayed)
        #expect(client.channelBind(peer: Self.peer, now: 50) != nil)
    }

    @Test func anUnansweredRefreshGivesUpQuietlyAndKeepsTheAllocation() throws {
        var client = try FakeTURNServer.allocatedClient()
        let requestBytes = client.refresh(lifetime: 600, now: 1)
        _ = try #require(requestBytes)
        let (resent, events) = Self.poll(&client, until: 1 + Self.rfcSchedule().giveUp + 1)
        #expect(resent.count == Self.rfcSchedule().resends.count)
        #expect(events.isEmpty)
        #expect(client.relayedAddress == FakeTURNServer.relayed)
    }

    @Test func overTCPOrTLSNothingIsRetransmitted() throws {
        var client = TURNClient(username: "user", password: "pass", isStream: true)
        _ = client.allocate(now: 0)
        let (resent, events) = Self.poll(&client, until: Self.rfcSchedule().giveUp + 1)
        #expect(resent.isEmpty && events.isEmpty)
        #expect(client.state == .allocating)
    }

    @Test func anAnsweredRequestIsNotResent() throws {
        var client = try FakeTURNServer.allocatedClient()
        #expect(client.retransmissions(now: 100).resend.isEmpty)
    }

    // MARK: Long-term credentials

    @Test func the401ChallengeIsAnsweredWithSignedCredentialsAndANewTransaction() throws {
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        let first = client.allocate(now: 0)
        let event = client.handle(try FakeTURNServer.error(to: first, code: 401, nonce: "n1"), now: 0.3)
        guard case .resend(let bytes) = event else {
            Issue.record("expected a resend, got \(event)")
            return
        }
        let retry = try STUNMessage(decoding: bytes)
        let original = try STUNMessage(decoding: first)
        #expect(retry.transactionID != original.transactionID)
        #expect(retry.username == "user" && retry.realm == FakeTURNServer.realm && retry.nonce == "n1")
        try retry.verifyIntegrity(credentials: FakeTURNServer.credentials)
        // The retry has its own timer from when it was sent; the first request is gone.
        #expect(client.retransmissions(now: 0.79).resend.isEmpty)
        #expect(client.retransmissions(now: 0.8).resend == [bytes])
    }

    @Test func a401ToSignedCredentialsFailsTheAllocation() throws {
        var client = TURNClient(username: "user", password: "wrong", isStream: false)
        let first = client.allocate(now: 0)
        guard case .resend(let second) = client.handle(try FakeTURNServer.error(to: first, code: 401, nonce: "n1"), now: 0.1) else {
            Issue.record("no resend")
            return
        }
        let event = client.handle(try FakeTURNServer.error(to: second, code: 401, nonce: "n2"), now: 0.2)
        guard case .failed(let error, let reason) = event else {
            Issue.record("expected a failure, got \(event)")
            return
        }
        #expect(error?.code == 401)
        #expect(reason.contains("refused the credentials"))
        #expect(client.state == .failed(error, reason))
    }

    @Test func aStaleNonceIsRetriedWithTheNewNonceAndTheSameKey() throws {
        var client = try FakeTURNServer.allocatedClient()
        let refreshBytes = client.refresh(lifetime: 300, now: 10)
        let refresh = try #require(refreshBytes)
        guard case .resend(let bytes) = client.handle(try FakeTURNServer.error(to: refresh, code: 438, nonce: "n2"), now: 10.1) else {
            Issue.record("no resend after 438")
            return
        }
        let retry = try STUNMessage(decoding: bytes)
        #expect(retry.nonce == "n2")
        #expect(retry.lifetime == 300)
        try retry.verifyIntegrity(credentials: FakeTURNServer.credentials)
        #expect(client.handle(try FakeTURNServer.success(to: bytes, [.lifetime(240)]), now: 10.2) == .refreshed(lifetime: 240))
    }

    @Test func aServerThatKeepsSayingStaleNonceEndsAfterTwoRetries() throws {
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        var request = client.allocate(now: 0)
        var resends = 0
        for (index, code) in [401, 438, 438].enumerated() {
            let event = client.handle(try FakeTURNServer.error(to: request, code: code, nonce: "n\(index)"), now: Double(index))
            if case .resend(let bytes) = event {
                request = bytes
                resends += 1
            } else if case .failed(let error, _) = event {
                #expect(error?.code == 438)
            } else {
                Issue.record("neither a resend nor a failure: \(event)")
            }
        }
        #expect(resends == 2)
        #expect(client.relayedAddress == nil)
    }

    @Test func anUnsignedSuccessAfterTheChallengeIsIgnored() throws {
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        let first = client.allocate(now: 0)
        guard case .resend(let second) = client.handle(try FakeTURNServer.error(to: first, code: 401, nonce: "n1"), now: 0.1) else {
            Issue.record("no resend")
            return
        }
        let forged = try FakeTURNServer.success(to: second, [.xorRelayedAddress(FakeTURNServer.relayed)], signed: false)
        #expect(client.handle(forged, now: 0.2) == .none)
        #expect(client.state == .allocating)
        // Still pending: the real answer is accepted.
        let real = try FakeTURNServer.success(to: second, [.xorRelayedAddress(FakeTURNServer.relayed)])
        #expect(client.handle(real, now: 0.3) == .allocated(relayed: FakeTURNServer.relayed, mapped: nil))
        // A duplicate of it is not news.
        #expect(client.handle(real, now: 0.4) == .none)
    }

    @Test(arguments: [403, 437, 486, 508])
    func anAllocateErrorFailsWithTheServersCode(code: Int) throws {
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        let first = client.allocate(now: 0)
        let event = client.handle(try FakeTURNServer.error(to: first, code: code), now: 0.1)
        guard case .failed(let error, _) = event else {
            Issue.record("expected a failure, got \(event)")
            return
        }
        #expect(error?.code == code)
        #expect(client.relayedAddress == nil)
    }

    // MARK: Allocation, refresh and channels

    @Test func theAllocationKeepsTheServersLifetimeOr600Seconds() throws {
        let client = try FakeTURNServer.allocatedClient()
        #expect(client.state == .allocated(relayed: FakeTURNServer.relayed, mapped: FakeTURNServer.mapped, lifetime: 600))
        var noLifetime = TURNClient(username: "user", password: "pass", isStream: false)
        let request = noLifetime.allocate(now: 0)
        // A server that does not challenge (no credentials yet: its success is taken unsigned).
        _ = noLifetime.handle(try FakeTURNServer.success(to: request, [.xorRelayedAddress(FakeTURNServer.relayed)], signed: false), now: 0.1)
        #expect(noLifetime.state == .allocated(relayed: FakeTURNServer.relayed, mapped: nil, lifetime: 600))
    }

    @Test func refreshingWithLifetimeZeroDeletesTheAllocation() throws {
        var client = try FakeTURNServer.allocatedClient()
        let refreshBytes = client.refresh(lifetime: 0, now: 5)
        let refresh = try #require(refreshBytes)
        #expect(try STUNMessage(decoding: refresh).lifetime == 0)
        #expect(client.handle(try FakeTURNServer.success(to: refresh), now: 5.1) == .refreshed(lifetime: 0))
        #expect(client.state == .closed)
        #expect(client.refresh(lifetime: 600, now: 6) == nil)
    }

    @Test func nothingButAllocateBeforeTheAllocationExists() {
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        #expect(client.channelBind(peer: Self.peer, now: 0) == nil)
        #expect(client.refresh(lifetime: 600, now: 0) == nil)
    }

    @Test func channelsAreNumberedFrom0x4000OnePerPeerAndCarryTheData() throws {
        var client = try FakeTURNServer.allocatedClient()
        let firstBytes = client.channelBind(peer: Self.peer, now: 1)
        let first = try #require(firstBytes)
        let secondBytes = client.channelBind(peer: Self.otherPeer, now: 1)
        let second = try #require(secondBytes)
        let againBytes = client.channelBind(peer: Self.peer, now: 2)  // a refresh of the same binding
        let again = try #require(againBytes)
        let numbers = try [first, second, again].map { try STUNMessage(decoding: $0).channelNumber }
        #expect(numbers == [0x4000, 0x4001, 0x4000])
        #expect(try STUNMessage(decoding: first).xorPeerAddress == Self.peer)

        // Before the bind is confirmed, data goes in a Send indication; after, in ChannelData.
        let beforeBind = try #require(client.wrap([1, 2, 3], to: Self.peer))
        #expect(try STUNMessage(decoding: beforeBind).type == STUNMessageType(method: .send, class: .indication))
        #expect(client.handle(try FakeTURNServer.success(to: first), now: 1.1) == .channelBound(peer: Self.peer, channel: 0x4000))
        let wrapped = try #require(client.wrap([1, 2, 3], to: Self.peer))
        #expect(try ChannelData(decoding: wrapped) == ChannelData(channelNumber: 0x4000, data: [1, 2, 3][...]))
        let unwrapped = try #require(client.unwrap(channelData: wrapped))
        #expect(unwrapped.peer == Self.peer && unwrapped.payload == [1, 2, 3][...])
        // ChannelData on a channel not bound here is not taken.
        #expect(client.unwrap(channelData: try ChannelData(channelNumber: 0x4001, data: [9][...]).encoded()) == nil)
    }

    @Test func overAStreamChannelDataIsPaddedToFourBytes() throws {
        var client = try FakeTURNServer.allocatedClient(isStream: true)
        let bindBytes = client.channelBind(peer: Self.peer, now: 1)
        let bind = try #require(bindBytes)
        _ = client.handle(try FakeTURNServer.success(to: bind), now: 1.1)
        for length in 0...8 {
            let wrapped = try #require(client.wrap([UInt8](repeating: 7, count: length), to: Self.peer))
            #expect(wrapped.count % 4 == 0)
            #expect(wrapped.count - (4 + length) < 4)
        }
    }
}
