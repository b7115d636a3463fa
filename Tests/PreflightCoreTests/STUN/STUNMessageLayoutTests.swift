import PreflightCore
import PropertyBased
import Testing

@Suite struct STUNMessageLayoutTests {
    @Test(arguments: rfc5769Vectors)
    func vectorsParseAndVerifyInPlace(vector: RFC5769Vector) throws {
        let key = STUNIntegrityKey(try vector.credentials.key())
        try vector.bytes.withUnsafeBytes { bytes in
            let layout = try STUNMessageLayout(parsing: bytes)
            #expect(layout.type == vector.type)
            #expect(layout.length == vector.bytes.count)
            try layout.verifyIntegrity(key: key, in: bytes)
            if vector.hasFingerprint {
                try layout.verifyFingerprint(in: bytes)
            }
            if let username = vector.username {
                let range = try #require(layout.value(of: .username, in: bytes))
                #expect(Array(vector.bytes[range]) == Array(username.utf8))
            }
            let decoded = try STUNMessage(decoding: vector.bytes)
            #expect(layout.attributeCount == decoded.attributes.count)
            #expect(layout.transactionID == decoded.transactionID)
        }
    }

    @Test func readsICEAttributesInPlace() throws {
        let key = STUNIntegrityKey(Array("0123456789abcdefghij+/".utf8))
        let request = STUNMessage(
            type: STUNMessageType(method: .binding, class: .request),
            attributes: [.username("edge:client"), .priority(0x6E00_01FF), .iceControlling(7), .useCandidate])
        // An attribute after MESSAGE-INTEGRITY must be ignored by `value(of:)`.
        var bytes = try request.encoded(integrityKey: key)
        bytes += [0x00, 0x24, 0x00, 0x04, 0xFF, 0xFF, 0xFF, 0xFF]  // a second PRIORITY after the MAC
        bytes[3] = UInt8(bytes.count - 20)
        try bytes.withUnsafeBytes { buffer in
            let layout = try STUNMessageLayout(parsing: buffer)
            let priority = try #require(layout.value(of: .priority, in: buffer))
            #expect(Array(bytes[priority]) == [0x6E, 0x00, 0x01, 0xFF])
            #expect(layout.value(of: .useCandidate, in: buffer)?.isEmpty == true)
            #expect(layout.value(of: .iceControlled, in: buffer) == nil)
            #expect(layout.attributeCount == 6)
            #expect(layout.value(of: .username, in: buffer, equals: Array("edge:client".utf8)))
            #expect(!layout.value(of: .username, in: buffer, equals: Array("edge:clienT".utf8)))
            #expect(!layout.value(of: .username, in: buffer, equals: Array("edge:clien".utf8)))
            #expect(!layout.value(of: .realm, in: buffer, equals: []))
            // The MAC covers only what precedes it, so the appended attribute does not break it.
            try layout.verifyIntegrity(key: key, in: buffer)
        }
    }

    @Test func wrongKeyAndFlippedBitsFailInPlace() throws {
        let key = STUNIntegrityKey(Array("0123456789abcdefghij+/".utf8))
        let other = STUNIntegrityKey(Array("0123456789abcdefghij+X".utf8))
        let request = STUNMessage(type: STUNMessageType(method: .binding, class: .request), attributes: [.username("a:b")])
        let bytes = try request.encoded(integrityKey: key, fingerprint: true)
        #expect(throws: PreflightError.self) {
            try bytes.withUnsafeBytes { try STUNMessageLayout(parsing: $0).verifyIntegrity(key: other, in: $0) }
        }
        for index in 20..<(bytes.count - 8) {
            var flipped = bytes
            flipped[index] ^= 0x10
            let failures = flipped.withUnsafeBytes { buffer -> Int in
                guard let layout = try? STUNMessageLayout(parsing: buffer) else { return 2 }
                var count = 0
                do { try layout.verifyIntegrity(key: key, in: buffer) } catch { count += 1 }
                do { try layout.verifyFingerprint(in: buffer) } catch { count += 1 }
                return count
            }
            #expect(failures > 0, "flipped byte \(index) went unnoticed")
        }
    }

    @Test func randomBytesNeverCrash() async {
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...96)) { bytes in
            bytes.withUnsafeBytes { buffer in
                if let layout = try? STUNMessageLayout(parsing: buffer) {
                    _ = layout.value(of: .username, in: buffer)
                    _ = try? layout.verifyFingerprint(in: buffer)
                }
            }
        }
    }
}
