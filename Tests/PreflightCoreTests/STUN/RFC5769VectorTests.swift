import PreflightCore
import Testing

/// One RFC 5769 test vector with what the RFC says it contains.
struct RFC5769Vector: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var credentials: STUNCredentials
    var type: STUNMessageType
    var username: String?
    var software: String?
    var address: TransportAddress?
    var realm: String?
    var nonce: String?
    var hasFingerprint: Bool
    var testDescription: String { name }
}

/// The four vectors of RFC 5769 §2, byte for byte (checked against the RFC text; the FINGERPRINT and
/// MESSAGE-INTEGRITY checks below would fail on any wrong byte).
let rfc5769Vectors: [RFC5769Vector] = [
    RFC5769Vector(
        name: "§2.1 sample request",
        bytes: hexBytes(
            """
            00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
            80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
            00 24 00 04 6e 00 01 ff
            80 29 00 08 93 2f f9 b1 51 26 3b 36
            00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20
            00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2
            80 28 00 04 e5 7a 3b cf
            """),
        credentials: .shortTerm(password: "VOkJxbRl1RmTxUk/WvJxBt"),
        type: .bindingRequest, username: "evtj:h6vY", software: "STUN test client",
        hasFingerprint: true),
    RFC5769Vector(
        name: "§2.2 sample IPv4 response",
        bytes: hexBytes(
            """
            01 01 00 3c 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
            80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
            00 20 00 08 00 01 a1 47 e1 12 a6 43
            00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7
            80 28 00 04 c0 7d 4c 96
            """),
        credentials: .shortTerm(password: "VOkJxbRl1RmTxUk/WvJxBt"),
        type: .bindingSuccess, software: "test vector",
        address: TransportAddress(ipv4: 192, 0, 2, 1, port: 32853), hasFingerprint: true),
    RFC5769Vector(
        name: "§2.3 sample IPv6 response",
        bytes: hexBytes(
            """
            01 01 00 48 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
            80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
            00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9
            00 08 00 14 a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41
            80 28 00 04 c8 fb 0b 4c
            """),
        credentials: .shortTerm(password: "VOkJxbRl1RmTxUk/WvJxBt"),
        type: .bindingSuccess, software: "test vector",
        address: TransportAddress(
            bytes: [0x20, 0x01, 0x0d, 0xb8, 0x12, 0x34, 0x56, 0x78, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77],
            port: 32853),
        hasFingerprint: true),
    RFC5769Vector(
        name: "§2.4 request with long-term authentication",
        bytes: hexBytes(
            """
            00 01 00 60 21 12 a4 42 78 ad 34 33 c6 ad 72 c0 29 da 41 2e
            00 06 00 12 e3 83 9e e3 83 88 e3 83 aa e3 83 83 e3 82 af e3 82 b9 00 00
            00 15 00 1c 66 2f 2f 34 39 39 6b 39 35 34 64 36 4f 4c 33 34 6f 4c 39 46 53 54 76 79 36 34 73 41
            00 14 00 0b 65 78 61 6d 70 6c 65 2e 6f 72 67 00
            00 08 00 14 f6 70 24 65 6d d6 4a 3e 02 b8 e0 71 2e 85 c9 a2 8c a8 96 66
            """),
        credentials: .longTerm(
            username: "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}", realm: "example.org",
            password: "The\u{00AD}M\u{00AA}tr\u{2168}"),
        type: .bindingRequest, username: "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}",
        realm: "example.org", nonce: "f//499k954d6OL34oL9FSTvy64sA", hasFingerprint: false),
]

@Suite struct RFC5769VectorTests {
    @Test(arguments: rfc5769Vectors)
    func decodesWithExpectedFields(_ vector: RFC5769Vector) throws {
        let message = try STUNMessage(decoding: vector.bytes)
        #expect(message.type == vector.type)
        #expect(message.username == vector.username)
        #expect(message.software == vector.software)
        #expect(message.xorMappedAddress == vector.address)
        #expect(message.realm == vector.realm)
        #expect(message.nonce == vector.nonce)
        #expect(message.unknownComprehensionRequiredAttributes.isEmpty)
        #expect(message.ignoredAttributes.isEmpty)
    }

    @Test func sampleRequestHasICEAttributes() throws {
        let message = try STUNMessage(decoding: rfc5769Vectors[0].bytes)
        #expect(message.transactionID == rfc5769TransactionID)
        #expect(message.priority == 0x6E00_01FF)
        #expect(message.iceControlled == 0x932F_F9B1_5126_3B36)
        #expect(message.iceControlling == nil)
        #expect(!message.useCandidate)
        #expect(message.fingerprint == 0xE57A_3BCF)
        #expect(message.attributes.map(\.type) == [.software, .priority, .iceControlled, .username, .messageIntegrity, .fingerprint])
    }

    @Test func addressesPrintAsTheRFCWritesThem() throws {
        #expect(try STUNMessage(decoding: rfc5769Vectors[1].bytes).xorMappedAddress?.description == "192.0.2.1:32853")
        #expect(
            try STUNMessage(decoding: rfc5769Vectors[2].bytes).xorMappedAddress?.description
                == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
    }

    @Test(arguments: rfc5769Vectors)
    func integrityAndFingerprintVerify(_ vector: RFC5769Vector) throws {
        let message = try STUNMessage(decoding: vector.bytes)
        try message.verifyIntegrity(credentials: vector.credentials)
        if vector.hasFingerprint {
            try message.verifyFingerprint()
        } else {
            expectError(.fingerprintMismatch) { () throws(PreflightError) in try message.verifyFingerprint() }
        }
        expectError(.integrityCheckFailed) { () throws(PreflightError) in
            try message.verifyIntegrity(key: Array("wrong password".utf8))
        }
    }

    @Test(arguments: rfc5769Vectors)
    func reencodingVerbatimReproducesTheBytes(_ vector: RFC5769Vector) throws {
        let message = try STUNMessage(decoding: vector.bytes)
        #expect(try message.encoded() == vector.bytes)
    }

    @Test(arguments: rfc5769Vectors)
    func recomputingIntegrityAndFingerprintReproducesTheBytes(_ vector: RFC5769Vector) throws {
        let message = try STUNMessage(decoding: vector.bytes)
        let key = try vector.credentials.key()
        #expect(try message.encoded(integrityKey: key, fingerprint: vector.hasFingerprint) == vector.bytes)
        // Rebuilt from scratch with the attributes that are not computed, the result is the same.
        var rebuilt = STUNMessage(
            type: vector.type, transactionID: message.transactionID,
            attributes: message.attributes.filter { $0.type != .messageIntegrity && $0.type != .fingerprint },
            padding: message.padding)
        #expect(try rebuilt.encoded(integrityKey: key, fingerprint: vector.hasFingerprint) == vector.bytes)
        rebuilt.padding = vector.name.hasPrefix("§2.4") ? 0x20 : 0x00
        #expect(try rebuilt.encoded(integrityKey: key, fingerprint: vector.hasFingerprint) != vector.bytes)
    }

    @Test(arguments: rfc5769Vectors)
    func anyFlippedBitFailsVerification(_ vector: RFC5769Vector) throws {
        let key = try vector.credentials.key()
        for bit in 0..<(vector.bytes.count * 8) {
            var bytes = vector.bytes
            bytes[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            let rejected = throwsError { () throws(PreflightError) in
                let message = try STUNMessage(decoding: bytes)
                try message.verifyIntegrity(key: key)
                if vector.hasFingerprint { try message.verifyFingerprint() }
            }
            #expect(rejected, "bit \(bit) flipped was accepted")
        }
    }

    @Test(arguments: rfc5769Vectors)
    func everyTruncationIsReportedAsTruncated(_ vector: RFC5769Vector) {
        for count in 0..<vector.bytes.count {
            expectError(.truncated, "prefix of \(count) bytes") { () throws(PreflightError) in
                _ = try STUNMessage(decoding: vector.bytes[0..<count])
            }
        }
    }

    @Test func longTermKeyUsesSASLprepPassword() throws {
        // RFC 5769 §2.4: the password "The<U+00AD>M<U+00AA>tr<U+2168>" is "TheMatrIX" after SASLprep.
        let prepared = STUNCredentials.longTerm(
            username: "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}", realm: "example.org", password: "TheMatrIX")
        #expect(try rfc5769Vectors[3].credentials.key() == prepared.key())
        #expect(try prepared.key().count == 16)
        #expect(try STUNCredentials.shortTerm(password: "The\u{00AD}M\u{00AA}tr\u{2168}").key() == Array("TheMatrIX".utf8))
    }

    @Test func decodesFromASliceInsideALargerBuffer() throws {
        let buffer = [0xFF, 0xEE] + rfc5769Vectors[0].bytes + [0xDD]
        let message = try STUNMessage(decoding: buffer[2..<(buffer.count - 1)])
        try message.verifyIntegrity(key: Array("VOkJxbRl1RmTxUk/WvJxBt".utf8))
        try message.verifyFingerprint()
        #expect(message.username == "evtj:h6vY")
    }
}
