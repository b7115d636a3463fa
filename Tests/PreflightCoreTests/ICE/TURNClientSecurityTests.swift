import PreflightCore
import Testing

/// The TURN client against a server (or an attacker on the path) that answers with forged
/// challenges and indications; times are passed in, no sockets.
@Suite struct TURNClientSecurityTests {
    static let peer = TransportAddress(host: "198.18.2.2", port: 40_000)!
    static let relayed = TransportAddress(host: "198.18.3.2", port: 50_000)!

    /// A 401 challenge to `request` with `nonce` and, optionally, PASSWORD-ALGORITHMS.
    static func challenge(to request: [UInt8], nonce: String, algorithms: [STUNPasswordAlgorithm]? = nil, code: Int = 401) throws -> STUNMessage {
        let original = try STUNMessage(decoding: request)
        var attributes: [STUNAttribute] = [.errorCode(STUNErrorCode(code: code, reason: "Unauthorized")), .realm("lab"), .nonce(nonce)]
        if let algorithms { attributes.append(.passwordAlgorithms(algorithms)) }
        let message = STUNMessage(
            type: STUNMessageType(method: original.type.method, class: .errorResponse), transactionID: original.transactionID,
            attributes: attributes)
        return try STUNMessage(decoding: try message.encoded())
    }

    static func reason(_ event: TURNClient.Event) -> String? {
        if case .failed(_, let reason) = event { return reason }
        return nil
    }

    @Test func aChallengeOfferingSHA256IsAnsweredWithSHA256() throws {
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        let first = client.allocate(now: 0)
        let event = client.handle(try Self.challenge(to: first, nonce: "n1", algorithms: [.md5, .sha256]), now: 0.1)
        guard case .resend(let bytes) = event else {
            Issue.record("expected a resend, got \(event)")
            return
        }
        let resent = try STUNMessage(decoding: bytes)
        #expect(resent.attributes.contains(.passwordAlgorithm(.sha256)))
    }

    @Test func aNonceThatAnnouncesPasswordAlgorithmsMustComeWithThem() throws {
        // "obMatJos2" + base64 of feature bits 0x800000 ("gAAA"): password algorithms supported.
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        let first = client.allocate(now: 0)
        let event = client.handle(try Self.challenge(to: first, nonce: "obMatJos2gAAAxyz"), now: 0.1)
        #expect(Self.reason(event)?.contains("downgrade") == true, "\(event)")
        // The same cookie without the bit (an RFC 8489 server without password algorithms) is fine.
        var plain = TURNClient(username: "user", password: "pass", isStream: false)
        let request = plain.allocate(now: 0)
        guard case .resend = plain.handle(try Self.challenge(to: request, nonce: "obMatJos2AAAAxyz"), now: 0.1) else {
            Issue.record("a cookie without the password-algorithms bit was refused")
            return
        }
    }

    @Test func SHA256OnceOfferedCannotBeWithdrawn() throws {
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        let first = client.allocate(now: 0)
        guard case .resend(let second) = client.handle(try Self.challenge(to: first, nonce: "n1", algorithms: [.sha256]), now: 0.1)
        else {
            Issue.record("no resend")
            return
        }
        // A "stale nonce" whose list has lost SHA-256: refused rather than answered with MD5.
        let event = client.handle(try Self.challenge(to: second, nonce: "n2", algorithms: [.md5], code: 438), now: 0.2)
        #expect(Self.reason(event)?.contains("downgrade") == true, "\(event)")
    }

    @Test func MD5DressedWithParametersIsStillMD5AndUnknownAlgorithmsAreRefused() throws {
        var strict = TURNClient(username: "user", password: "pass", isStream: false, allowsMD5: false)
        let first = strict.allocate(now: 0)
        let dressed = STUNPasswordAlgorithm(number: 0x0001, parameters: [1, 2, 3, 4])
        let event = strict.handle(try Self.challenge(to: first, nonce: "n1", algorithms: [dressed]), now: 0.1)
        #expect(Self.reason(event)?.contains("MD5") == true, "\(event)")
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        let request = client.allocate(now: 0)
        let unknown = client.handle(
            try Self.challenge(to: request, nonce: "n1", algorithms: [STUNPasswordAlgorithm(number: 0x7777)]), now: 0.1)
        #expect(Self.reason(unknown)?.contains("no password algorithm") == true, "\(unknown)")
    }

    @Test func aClientThatRefusesMD5SaysSo() throws {
        var client = TURNClient(username: "user", password: "pass", isStream: false, allowsMD5: false)
        let first = client.allocate(now: 0)
        let event = client.handle(try Self.challenge(to: first, nonce: "n1"), now: 0.1)
        #expect(Self.reason(event)?.contains("MD5") == true, "\(event)")
    }

    @Test func dataIndicationsFromPeersWithoutPermissionAreDropped() throws {
        var client = TURNClient(username: "user", password: "pass", isStream: false)
        // Allocate without credentials (a server that does not challenge), then bind a channel.
        let allocate = try STUNMessage(decoding: client.allocate(now: 0))
        let success = STUNMessage(
            type: STUNMessageType(method: .allocate, class: .successResponse), transactionID: allocate.transactionID,
            attributes: [.xorRelayedAddress(Self.relayed)])
        _ = client.handle(try STUNMessage(decoding: try success.encoded()), now: 0.1)
        func indication(from peer: TransportAddress) throws -> STUNMessage {
            let message = STUNMessage(
                type: STUNMessageType(method: .data, class: .indication), transactionID: .random(),
                attributes: [.xorPeerAddress(peer), .data([1, 2, 3][...])])
            return try STUNMessage(decoding: try message.encoded())
        }
        #expect(client.handle(try indication(from: Self.peer), now: 0.2) == .none)
        _ = client.channelBind(peer: Self.peer, now: 0.3)
        // The permission covers the peer's address on any port (RFC 8656 §9).
        let otherPort = TransportAddress(host: "198.18.2.2", port: 40_001)!
        #expect(client.handle(try indication(from: otherPort), now: 0.4) == .data(peer: otherPort, payload: [1, 2, 3][...]))
        let stranger = TransportAddress(host: "198.18.9.9", port: 40_000)!
        #expect(client.handle(try indication(from: stranger), now: 0.5) == .none)
        // A bind that fails takes the permission with it.
        let other = TransportAddress(host: "198.18.2.3", port: 40_000)!
        let bindBytes = client.channelBind(peer: other, now: 0.6)
        let bind = try STUNMessage(decoding: try #require(bindBytes))
        let refusal = STUNMessage(
            type: STUNMessageType(method: .channelBind, class: .errorResponse), transactionID: bind.transactionID,
            attributes: [.errorCode(STUNErrorCode(code: 403, reason: "Forbidden"))])
        _ = client.handle(try STUNMessage(decoding: try refusal.encoded()), now: 0.7)
        #expect(client.handle(try indication(from: other), now: 0.8) == .none)
    }

    @Test func checkListsKeepAtMostTheConfiguredPairs() {
        let local = (0..<20).map { ICECheckListTests.candidate("\($0)", .host, "198.18.0.\($0 + 1)", priority: UInt32(1000 + $0)) }
        let remote = (0..<20).map { ICECheckListTests.candidate("r\($0)", .host, "198.18.2.\($0 + 1)", priority: UInt32(2000 + $0)) }
        let capped = ICECheckList(local: local, remote: remote)
        #expect(capped.pairs.count == 100)
        // The highest-priority pairs are the ones kept.
        let all = ICECheckList(local: local, remote: remote, configuration: .init(maximumPairs: 400))
        #expect(all.pairs.count == 400)
        #expect(capped.pairs.map(\.priority) == Array(all.pairs.prefix(100).map(\.priority)))
    }
}
