import PreflightCore
import Testing

@Suite struct STUNAttributeTests {
    static let transactionID = rfc5769TransactionID

    /// Encodes `attributes` in a Binding request with the RFC 5769 transaction ID and returns the bytes after the header.
    func body(_ attributes: [STUNAttribute]) throws -> [UInt8] {
        let bytes = try STUNMessage(type: .bindingRequest, transactionID: Self.transactionID, attributes: attributes)
            .encoded()
        return Array(bytes.dropFirst(20))
    }

    static let everyAttribute: [STUNAttribute] = [
        .mappedAddress(TransportAddress(ipv4: 198, 18, 0, 1, port: 3478)),
        .mappedAddress(TransportAddress(ipv6: "2001:db8::1", port: 3478)!),
        .xorMappedAddress(TransportAddress(ipv4: 192, 0, 2, 1, port: 32853)),
        .xorMappedAddress(TransportAddress(ipv6: "2001:db8:1234:5678:11:2233:4455:6677", port: 32853)!),
        .username("evtj:h6vY"),
        .userhash(ArraySlice(0..<32)),
        .errorCode(.unauthorized),
        .realm("example.org"),
        .nonce("f//499k954d6OL34oL9FSTvy64sA"),
        .software("Preflight 1.0 \u{1F680}"),
        .alternateServer(TransportAddress(ipv4: 203, 0, 113, 7, port: 3479)),
        .alternateServer(TransportAddress(ipv6: "fe80::1", port: 3479)!),
        .unknownAttributes([0x0024, 0x7FFF]),
        .passwordAlgorithm(.sha256),
        .passwordAlgorithms([.md5, .sha256, STUNPasswordAlgorithm(number: 9, parameters: [1, 2, 3])]),
        .priority(0x6E00_01FF),
        .useCandidate,
        .iceControlled(0x932F_F9B1_5126_3B36),
        .iceControlling(0xFFFF_FFFF_FFFF_FFFF),
        .xorPeerAddress(TransportAddress(ipv4: 10, 0, 0, 1, port: 5000)),
        .xorPeerAddress(TransportAddress(ipv6: "::1", port: 5000)!),
        .xorRelayedAddress(TransportAddress(ipv4: 198, 51, 100, 2, port: 49152)),
        .xorRelayedAddress(TransportAddress(ipv6: "2001:db8::dead:beef", port: 65535)!),
        .lifetime(600),
        .requestedTransport(17),
        .data([0xDE, 0xAD, 0xBE, 0xEF, 0x01]),
        .data([]),
        .channelNumber(0x4001),
        .unknown(type: 0x7F00, value: [1, 2, 3]),
        .unknown(type: 0xC0DE, value: []),
        .messageIntegrity(ArraySlice(repeating: 0xAB, count: 20)),
        .messageIntegritySHA256(ArraySlice(repeating: 0xCD, count: 16)),
        .fingerprint(0x1234_5678),
    ]

    @Test(arguments: everyAttribute)
    func roundTrips(_ attribute: STUNAttribute) throws {
        let message = STUNMessage(type: .bindingSuccess, transactionID: Self.transactionID, attributes: [attribute])
        let bytes = try message.encoded()
        #expect(bytes.count % 4 == 0)
        let decoded = try STUNMessage(decoding: bytes)
        #expect(decoded.attributes == [attribute])
        #expect(decoded == message)
        #expect(decoded.attributes.first?.type == attribute.type)
    }

    @Test func xorMappedIPv4ByHand() throws {
        // 10.0.0.1:3478. Port 0x0d96 ^ 0x2112 = 0x2c84; address 0a000001 ^ 2112a442 = 2b12a443.
        let address = TransportAddress(ipv4: 10, 0, 0, 1, port: 3478)
        #expect(try body([.xorMappedAddress(address)]) == hexBytes("0020 0008 0001 2c84 2b12a443"))
        // MAPPED-ADDRESS is not obfuscated.
        #expect(try body([.mappedAddress(address)]) == hexBytes("0001 0008 0001 0d96 0a000001"))
    }

    @Test func xorMappedIPv6ByHand() throws {
        // ::1 XOR (cookie ‖ transaction ID) = 2112a442 b7e7a701 bc34d686 fa87dfae with the last bit flipped.
        let address = TransportAddress(ipv6: "::1", port: 3478)!
        #expect(
            try body([.xorMappedAddress(address)])
                == hexBytes("0020 0014 0002 2c84 2112a442 b7e7a701 bc34d686 fa87dfaf"))
        #expect(
            try body([.xorPeerAddress(address)]) == hexBytes("0012 0014 0002 2c84 2112a442 b7e7a701 bc34d686 fa87dfaf"))
        #expect(
            try body([.xorRelayedAddress(address)])
                == hexBytes("0016 0014 0002 2c84 2112a442 b7e7a701 bc34d686 fa87dfaf"))
    }

    @Test func errorCodesByHand() throws {
        // 401: class 4, number 1, "Unauthorized" is 12 bytes.
        #expect(
            try body([.errorCode(.unauthorized)]) == [0x00, 0x09, 0x00, 0x10, 0x00, 0x00, 0x04, 0x01] + Array("Unauthorized".utf8))
        // 438: class 4, number 38 (0x26), "Stale Nonce" is 11 bytes + 1 byte of padding.
        #expect(
            try body([.errorCode(.staleNonce)])
                == [0x00, 0x09, 0x00, 0x0F, 0x00, 0x00, 0x04, 0x26] + Array("Stale Nonce".utf8) + [0])
        // 300: class 3, number 0, "Try Alternate" is 13 bytes + 3 bytes of padding.
        #expect(
            try body([.errorCode(.tryAlternate)])
                == [0x00, 0x09, 0x00, 0x11, 0x00, 0x00, 0x03, 0x00] + Array("Try Alternate".utf8) + [0, 0, 0])
        for code in [STUNErrorCode.unauthorized, .staleNonce, .tryAlternate, STUNErrorCode(code: 699, reason: "")] {
            let message = STUNMessage(type: .bindingError, attributes: [.errorCode(code)])
            #expect(try STUNMessage(decoding: message.encoded()).errorCode == code)
        }
    }

    @Test func errorCodeOutsideRangeIsMalformed() throws {
        var bytes = try STUNMessage(type: .bindingError, attributes: [.errorCode(.unauthorized)]).encoded()
        bytes[26] = 0x02  // class 2
        expectError(.malformed) { () throws(PreflightError) in _ = try STUNMessage(decoding: bytes) }
        bytes[26] = 0x04
        bytes[27] = 100  // number 100
        expectError(.malformed) { () throws(PreflightError) in _ = try STUNMessage(decoding: bytes) }
    }

    @Test func smallFixedAttributesByHand() throws {
        #expect(try body([.priority(0x6E00_01FF)]) == hexBytes("0024 0004 6e0001ff"))
        #expect(try body([.useCandidate]) == hexBytes("0025 0000"))
        #expect(try body([.iceControlling(0x0102_0304_0506_0708)]) == hexBytes("802a 0008 0102030405060708"))
        #expect(try body([.lifetime(600)]) == hexBytes("000d 0004 00000258"))
        #expect(try body([.requestedTransport(17)]) == hexBytes("0019 0004 11000000"))
        #expect(try body([.channelNumber(0x4000)]) == hexBytes("000c 0004 40000000"))
        #expect(try body([.data([1, 2, 3, 4, 5])]) == hexBytes("0013 0005 0102030405 000000"))
        #expect(try body([.unknownAttributes([0x0024, 0x8001, 0x0006])]) == hexBytes("000a 0006 0024 8001 0006 0000"))
        #expect(try body([.passwordAlgorithm(.md5)]) == hexBytes("001d 0004 0001 0000"))
    }

    @Test func unknownAttributesArePreservedAndListed() throws {
        let bytes = hexBytes(
            """
            0001 0018 2112a442 b7e7a701 bc34d686 fa87dfae
            7777 0003 aabbcc 00
            c001 0002 0102 0000
            0006 0001 61 000000
            """)
        let message = try STUNMessage(decoding: bytes)
        #expect(message.attributes[0] == .unknown(type: 0x7777, value: [0xAA, 0xBB, 0xCC]))
        #expect(message.attributes[1] == .unknown(type: 0xC001, value: [0x01, 0x02]))
        #expect(message.username == "a")
        #expect(message.unknownComprehensionRequiredAttributes == [0x7777])
        #expect(try message.encoded() == bytes)
    }

    @Test func invalidAddressFamilyIsMalformed() throws {
        for attributeType in ["0001", "0020", "0012", "0016", "8023"] {
            let bytes = hexBytes("0101 000c 2112a442 b7e7a701 bc34d686 fa87dfae \(attributeType) 0008 0003 1234 01020304")
            expectError(.malformed, "type \(attributeType)") { () throws(PreflightError) in
                _ = try STUNMessage(decoding: bytes)
            }
        }
        // IPv6 family with only 4 address bytes.
        let short = hexBytes("0101 000c 2112a442 b7e7a701 bc34d686 fa87dfae 0020 0008 0002 1234 01020304")
        expectError(.malformed) { () throws(PreflightError) in _ = try STUNMessage(decoding: short) }
    }

    @Test func wrongFixedSizesAreMalformed() throws {
        let cases = [
            "0024 0002 0001 0000",  // PRIORITY of 2 bytes
            "0025 0004 00000000",  // USE-CANDIDATE with a value
            "8029 0004 00000000",  // ICE-CONTROLLED of 4 bytes
            "0008 0004 00000000",  // MESSAGE-INTEGRITY of 4 bytes
            "8028 0008 0000000000000000",  // FINGERPRINT of 8 bytes
            "001c 000c 000000000000000000000000",  // MESSAGE-INTEGRITY-SHA256 of 12 bytes
            "0006 0002 ff fe 0000",  // USERNAME that is not UTF-8
        ]
        for attribute in cases {
            let attributeBytes = hexBytes(attribute)
            let header = hexBytes("0001 0000 2112a442 b7e7a701 bc34d686 fa87dfae")
            var bytes = header + attributeBytes
            bytes[3] = UInt8(attributeBytes.count)
            expectError(.malformed, "\(attribute)") { () throws(PreflightError) in _ = try STUNMessage(decoding: bytes) }
        }
    }
}
