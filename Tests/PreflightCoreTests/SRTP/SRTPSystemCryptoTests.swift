@testable import PreflightCore
import Testing

/// SRTP through the system's libcrypto (a key set up once, packets in the caller's memory) and
/// through swift-crypto: the same bytes both ways, and the in-place calls' limits.
@Suite struct SRTPSystemCryptoTests {
    static func contexts(systemCrypto: Bool) throws -> SRTPContext {
        SRTPContext(
            sessionKeys: try SRTPSessionKeys(
                rtpKey: SRTPContextTests.key, rtpSalt: SRTPContextTests.salt, rtcpKey: SRTPContextTests.key, rtcpSalt: SRTPContextTests.salt),
            systemCrypto: systemCrypto)
    }

    #if os(Linux)
    /// libcrypto.so.3 is on every machine the edge runs on (Debian's libssl3, which CI has).
    @Test func linuxUsesTheSystemsLibcrypto() throws {
        #expect(try Self.contexts(systemCrypto: true).usesSystemCrypto)
        #expect(try !Self.contexts(systemCrypto: false).usesSystemCrypto)
    }
    #endif

    @Test func bothWaysMeetRFC7714sVectors() throws {
        for system in [true, false] {
            var sender = try Self.contexts(systemCrypto: system)
            var receiver = try Self.contexts(systemCrypto: system)
            #expect(try sender.protectRTP(SRTPContextTests.plain) == SRTPContextTests.protected)
            #expect(try receiver.unprotectRTP(SRTPContextTests.protected) == SRTPContextTests.plain)
        }
    }

    @Test func eachWayOpensWhatTheOtherSealed() throws {
        var system = try Self.contexts(systemCrypto: true)
        var swiftCrypto = try Self.contexts(systemCrypto: false)
        var systemReceiver = try Self.contexts(systemCrypto: true)
        var swiftReceiver = try Self.contexts(systemCrypto: false)
        var random = SystemRandomNumberGenerator()
        for sequence in UInt16(0)..<200 {
            let payload = (0..<Int(random.next(upperBound: 300) as UInt)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let packet = try SRTPContextTests.packet(sequenceNumber: sequence, payload: payload)
            let sealed = try system.protectRTP(packet)
            #expect(try swiftCrypto.protectRTP(packet) == sealed)
            #expect(try swiftReceiver.unprotectRTP(sealed) == packet)
            #expect(try systemReceiver.unprotectRTP(sealed) == packet)
        }
    }

    @Test func inPlaceProtectionWritesWhatTheArrayCallReturns() throws {
        var inPlace = try Self.contexts(systemCrypto: true)
        var buffer = SRTPContextTests.plain + [UInt8](repeating: 0, count: SRTPContext.rtpOverhead + 7)
        let length = try buffer.withUnsafeMutableBytes { try inPlace.protectRTP(inPlace: $0, length: SRTPContextTests.plain.count) }
        #expect(length == SRTPContextTests.protected.count)
        #expect(Array(buffer[..<length]) == SRTPContextTests.protected)

        var receiver = try Self.contexts(systemCrypto: true)
        var output = [UInt8](repeating: 0, count: length)
        let opened = try SRTPContextTests.protected.withUnsafeBytes { packet in
            try output.withUnsafeMutableBytes { try receiver.unprotectRTP(packet, into: $0) }
        }
        #expect(Array(output[..<opened]) == SRTPContextTests.plain)
    }

    @Test func noRoomForTheTagOrThePacketIsRefused() throws {
        var sender = try Self.contexts(systemCrypto: true)
        var tight = SRTPContextTests.plain + [UInt8](repeating: 0, count: SRTPContext.rtpOverhead - 1)
        #expect(SRTPContextTests.code {
            _ = try tight.withUnsafeMutableBytes { try sender.protectRTP(inPlace: $0, length: SRTPContextTests.plain.count) }
        } == .invalidArgument)
        var receiver = try Self.contexts(systemCrypto: true)
        var small = [UInt8](repeating: 0, count: SRTPContextTests.plain.count - 1)
        #expect(SRTPContextTests.code {
            _ = try SRTPContextTests.protected.withUnsafeBytes { packet in try small.withUnsafeMutableBytes { try receiver.unprotectRTP(packet, into: $0) } }
        } == .invalidArgument)
        // Neither refusal used the index: the packet still goes through, once.
        #expect(try receiver.unprotectRTP(SRTPContextTests.protected) == SRTPContextTests.plain)
        #expect(SRTPContextTests.code { _ = try receiver.unprotectRTP(SRTPContextTests.protected) } == .srtpReplayed)
    }

    @Test func aForgedPacketChangesNothingInPlace() throws {
        var receiver = try Self.contexts(systemCrypto: true)
        var forged = SRTPContextTests.protected
        forged[forged.count - 1] ^= 0x80
        var output = [UInt8](repeating: 0, count: forged.count)
        #expect(SRTPContextTests.code {
            _ = try forged.withUnsafeBytes { packet in try output.withUnsafeMutableBytes { try receiver.unprotectRTP(packet, into: $0) } }
        } == .srtpAuthenticationFailed)
        #expect(try receiver.unprotectRTP(SRTPContextTests.protected) == SRTPContextTests.plain)
    }
}
