import NIOCore
import PreflightCore
import Testing

@testable import PreflightEdge

/// A media thread's read burst: its sources looked up together (``MediaService/lookUp(_:entries:)``),
/// then each datagram routed with the entry found, which is checked against its source first.
@Suite struct MediaServiceLookUpTests {
    static let one = try! SocketAddress(ipAddress: "127.0.0.1", port: 50_001)
    static let two = try! SocketAddress(ipAddress: "127.0.0.1", port: 50_002)
    static let stranger = try! SocketAddress(ipAddress: "127.0.0.1", port: 50_003)

    /// A service with sessions "one" and "two", each verified from its own address.
    static func service() throws -> MediaService {
        let service = MediaService()
        for (ufrag, address) in [("one", one), ("two", two)] {
            let password = "\(ufrag)password0123456789"
            service.addSession(ICELiteCredentials(localUfrag: ufrag, localPassword: password, remoteUfrag: "clnt"))
            let check = STUNMessage(
                type: .bindingRequest, attributes: [.username("\(ufrag):clnt"), .priority(1), .iceControlling(1), .useCandidate])
            _ = service.handle(ByteBuffer(bytes: try check.encoded(integrityKey: Array(password.utf8), fingerprint: true)), from: address)
            #expect(service.isVerified(address))
        }
        return service
    }

    static func lookUp(_ service: MediaService, _ addresses: [SocketAddress]) throws -> [Int] {
        let keys = try addresses.map { try #require(SourceKey($0)) } + [SourceKey.unknown]
        var entries = [Int](repeating: 7, count: keys.count)
        keys.withUnsafeBufferPointer { keys in entries.withUnsafeMutableBufferPointer { service.lookUp(keys, entries: $0) } }
        return entries
    }

    static func route(_ service: MediaService, from address: SocketAddress, entry: Int) throws -> Bool {
        var replies = ByteBuffer()
        return service.route(MediaServiceTests.rtp, from: try #require(DatagramSource(address)), entry: entry, appendingTo: &replies) != nil
    }

    @Test func eachSourceGetsItsOwnEntryOrNone() throws {
        let service = try Self.service()
        let entries = try Self.lookUp(service, [Self.one, Self.stranger, Self.two])
        #expect(entries[0] >= 0 && entries[2] >= 0 && entries[0] != entries[2])
        #expect(entries[1] == -1 && entries[3] == -1)
        #expect(try Self.route(service, from: Self.one, entry: entries[0]))
        #expect(service.statistics(localUfrag: "one")?.received == 1)
    }

    @Test func anEntryThatIsAnotherSourcesIsNotUsed() throws {
        let service = try Self.service()
        let entries = try Self.lookUp(service, [Self.one, Self.two])
        // Given two's entry, one's datagram still reaches one's session.
        #expect(try Self.route(service, from: Self.one, entry: entries[1]))
        #expect(service.statistics(localUfrag: "one")?.received == 1 && service.statistics(localUfrag: "two")?.received == 0)
        // Given a verified entry, an address never checked is still refused.
        #expect(try !Self.route(service, from: Self.stranger, entry: entries[0]))
        #expect(service.counters.droppedUnverified == 1)
    }

    @Test func anEntryFoundBeforeItsSessionEndedIsNotUsed() throws {
        let service = try Self.service()
        let entries = try Self.lookUp(service, [Self.one])
        service.removeSession(localUfrag: "one")
        // The entry's number is free, then another address's: one is no longer verified.
        service.addSession(ICELiteCredentials(localUfrag: "three", localPassword: "threepassword0123456789", remoteUfrag: "clnt"))
        #expect(try !Self.route(service, from: Self.one, entry: entries[0]))
        #expect(try !Self.route(service, from: Self.one, entry: -1))
        #expect(service.counters.droppedUnverified == 2)
    }
}
