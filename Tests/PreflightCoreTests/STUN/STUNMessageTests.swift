import PreflightCore
import Testing

@Suite struct STUNMessageTypeTests {
    /// Type values from RFC 8489 §5 (Binding) and RFC 8656 §17 (TURN), derived by hand from the bit layout.
    @Test(arguments: [
        (STUNMethod.binding, STUNClass.request, UInt16(0x0001)),
        (.binding, .indication, 0x0011),
        (.binding, .successResponse, 0x0101),
        (.binding, .errorResponse, 0x0111),
        (.allocate, .request, 0x0003),
        (.allocate, .successResponse, 0x0103),
        (.allocate, .errorResponse, 0x0113),
        (.refresh, .request, 0x0004),
        (.send, .indication, 0x0016),
        (.data, .indication, 0x0017),
        (.createPermission, .request, 0x0008),
        (.channelBind, .request, 0x0009),
        (.channelBind, .successResponse, 0x0109),
        (STUNMethod(rawValue: 0xFFF), .errorResponse, 0x3FFF),
        (STUNMethod(rawValue: 0x080), .request, 0x0200),
        (STUNMethod(rawValue: 0x010), .request, 0x0020),
    ])
    func interleavesMethodAndClass(_ method: STUNMethod, _ messageClass: STUNClass, _ raw: UInt16) {
        let type = STUNMessageType(method: method, class: messageClass)
        #expect(type.rawValue == raw)
        #expect(STUNMessageType(rawValue: raw) == type)
    }

    @Test func everyMethodAndClassRoundTrips() {
        for method in UInt16(0)...0xFFF {
            for messageClass in STUNClass.allCases {
                let type = STUNMessageType(method: STUNMethod(rawValue: method), class: messageClass)
                #expect(type.rawValue & 0xC000 == 0)
                guard STUNMessageType(rawValue: type.rawValue) == type else {
                    Issue.record("method \(method) class \(messageClass) does not round-trip")
                    return
                }
            }
        }
    }

    @Test func transactionIDBytesAndRandomness() {
        #expect(rfc5769TransactionID.bytes == hexBytes("b7e7a701 bc34d686 fa87dfae"))
        #expect(STUNTransactionID(bytes: hexBytes("b7e7a701 bc34d686 fa87dfae")) == rfc5769TransactionID)
        #expect(STUNTransactionID(bytes: [1, 2, 3]) == nil)
        #expect(rfc5769TransactionID.description == "b7e7a701bc34d686fa87dfae")
        var a = SplitMix64(seed: 1)
        var b = SplitMix64(seed: 1)
        #expect(STUNTransactionID.random(using: &a) == STUNTransactionID.random(using: &b))
        #expect(STUNTransactionID.random(using: &a) != STUNTransactionID.random(using: &a))
        #expect(STUNTransactionID.random() != STUNTransactionID.random())
    }
}

@Suite struct STUNMessageDecodingErrorTests {
    static let header = hexBytes("0001 0000 2112a442 b7e7a701 bc34d686 fa87dfae")

    @Test func emptyAndShortHeaderAreTruncated() {
        expectError(.truncated) { () throws(PreflightError) in _ = try STUNMessage(decoding: []) }
        expectError(.truncated) { () throws(PreflightError) in _ = try STUNMessage(decoding: Array(Self.header.prefix(19))) }
    }

    @Test(arguments: [UInt8(0x40), 0x80, 0xC0])
    func leadingBitsMustBeZero(_ first: UInt8) {
        var bytes = Self.header
        bytes[0] |= first
        expectError(.malformed) { () throws(PreflightError) in _ = try STUNMessage(decoding: bytes) }
        #expect(!STUNMessage.looksLikeSTUN(bytes[...]))
    }

    @Test func lengthMustBeAMultipleOfFour() {
        var bytes = Self.header + [0, 0]
        bytes[3] = 2
        expectError(.malformed) { () throws(PreflightError) in _ = try STUNMessage(decoding: bytes) }
    }

    @Test func lengthMustMatchTheInput() {
        var longer = Self.header + [0, 0, 0, 0]
        longer[3] = 0  // says 0, has 4 more bytes
        expectError(.malformed) { () throws(PreflightError) in _ = try STUNMessage(decoding: longer) }
        var shorter = Self.header
        shorter[3] = 8  // says 8, has none
        expectError(.truncated) { () throws(PreflightError) in _ = try STUNMessage(decoding: shorter) }
    }

    @Test func magicCookieMustMatch() {
        var bytes = Self.header
        bytes[7] = 0x43
        expectError(.malformed) { () throws(PreflightError) in _ = try STUNMessage(decoding: bytes) }
        #expect(!STUNMessage.looksLikeSTUN(bytes[...]))
        #expect(STUNMessage.looksLikeSTUN(Self.header[...]))
    }

    @Test func attributeLongerThanTheMessageIsTruncated() {
        // SOFTWARE says 8 bytes, only 4 follow.
        let bytes = hexBytes("0001 0008 2112a442 b7e7a701 bc34d686 fa87dfae 8022 0008 61626364")
        expectError(.truncated) { () throws(PreflightError) in _ = try STUNMessage(decoding: bytes) }
        // SOFTWARE of 5 bytes, then the message ends inside the padding.
        let noPadding = hexBytes("0001 000c 2112a442 b7e7a701 bc34d686 fa87dfae 8022 0005 6162636465 000000 ")
        #expect((try? STUNMessage(decoding: noPadding)) != nil)
        expectError(.truncated) { () throws(PreflightError) in
            var bytes = hexBytes("0001 0008 2112a442 b7e7a701 bc34d686 fa87dfae 8022 0005 61626364")
            bytes[3] = 8
            _ = try STUNMessage(decoding: bytes)
        }
    }

    @Test func fingerprintMustBeLast() throws {
        let valid = rfc5769Vectors[0].bytes
        var bytes = valid + hexBytes("8022 0004 61626364")
        bytes[3] = UInt8(valid.count - 20 + 8)
        expectError(.malformed) { () throws(PreflightError) in _ = try STUNMessage(decoding: bytes) }
    }

    @Test func attributesAfterIntegrityAreKeptButIgnored() throws {
        let key = Array("secret".utf8)
        let protected = try STUNMessage(
            type: .bindingRequest, transactionID: rfc5769TransactionID, attributes: [.username("a:b")]
        ).encoded(integrityKey: key)
        // Append SOFTWARE and PRIORITY after MESSAGE-INTEGRITY, as an attacker could, and fix the length.
        var bytes = protected + hexBytes("8022 0004 61626364 0024 0004 00000001")
        bytes[3] = UInt8(bytes.count - 20)
        let message = try STUNMessage(decoding: bytes)
        #expect(message.attributes.count == 4)
        #expect(message.software == nil)
        #expect(message.priority == nil)
        #expect(message.username == "a:b")
        #expect(message.ignoredAttributes == [.software("abcd"), .priority(1)])
        #expect(message.isIgnoredAttribute(at: 2) && message.isIgnoredAttribute(at: 3))
        #expect(!message.isIgnoredAttribute(at: 0) && !message.isIgnoredAttribute(at: 1))
        // The HMAC only covers what precedes it, so the integrity still verifies.
        try message.verifyIntegrity(key: key)
    }

    @Test func unknownRequiredAttributeAfterIntegrityIsNotReported() throws {
        let bytes = try STUNMessage(
            type: .bindingRequest,
            attributes: [.messageIntegrity(ArraySlice(repeating: 0, count: 20)), .unknown(type: 0x7001, value: [])]
        ).encoded()
        let message = try STUNMessage(decoding: bytes)
        #expect(message.unknownComprehensionRequiredAttributes.isEmpty)
        #expect(message.ignoredAttributes == [.unknown(type: 0x7001, value: [])])
    }
}

@Suite struct STUNIntegrityTests {
    let request = STUNMessage(
        type: .bindingRequest,
        transactionID: rfc5769TransactionID,
        attributes: [
            .username("remote:local"), .priority(0x6E7F_1EFF), .iceControlling(0x1122_3344_5566_7788), .useCandidate,
        ])
    let key = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)

    @Test func sha1IntegrityAndFingerprint() throws {
        let bytes = try request.encoded(integrityKey: key, fingerprint: true)
        let message = try STUNMessage(decoding: bytes)
        try message.verifyIntegrity(key: key)
        try message.verifyFingerprint()
        #expect(Array(message.attributes.prefix(4)) == request.attributes)
        #expect(message.attributes.map(\.type).suffix(2) == [.messageIntegrity, .fingerprint])
        #expect(message.useCandidate)
        #expect(message.iceControlling == 0x1122_3344_5566_7788)
    }

    @Test func sha256Integrity() throws {
        let bytes = try request.encoded(integrityKey: key, useSHA256: true, fingerprint: true)
        let message = try STUNMessage(decoding: bytes)
        try message.verifyIntegrity(key: key)
        try message.verifyFingerprint()
        guard case .messageIntegritySHA256(let mac) = message.attributes[4] else {
            Issue.record("expected MESSAGE-INTEGRITY-SHA256, got \(message.attributes[4])")
            return
        }
        #expect(mac.count == 32)
        expectError(.integrityCheckFailed) { () throws(PreflightError) in
            try message.verifyIntegrity(key: Array("other".utf8))
        }
        for index in 0..<(bytes.count - 8) {
            var flipped = bytes
            flipped[index] ^= 0x01
            let rejected = throwsError { () throws(PreflightError) in
                try STUNMessage(decoding: flipped).verifyIntegrity(key: key)
            }
            #expect(rejected, "byte \(index) flipped was accepted")
        }
    }

    @Test func missingAttributesAreReportedAsSuch() throws {
        let message = try STUNMessage(decoding: request.encoded())
        expectError(.integrityCheckFailed) { () throws(PreflightError) in try message.verifyIntegrity(key: key) }
        do {
            try message.verifyIntegrity(key: key)
        } catch {
            #expect(error.message.contains("no MESSAGE-INTEGRITY"))
        }
        expectError(.fingerprintMismatch) { () throws(PreflightError) in try message.verifyFingerprint() }
    }

    @Test func locallyBuiltMessagesVerifyThroughTheirEncoding() throws {
        let protected = try STUNMessage(decoding: request.encoded(integrityKey: key, fingerprint: true))
        var copy = STUNMessage(type: protected.type, transactionID: protected.transactionID, attributes: protected.attributes)
        try copy.verifyIntegrity(key: key)
        try copy.verifyFingerprint()
        copy.attributes[0] = .username("changed")
        expectError(.integrityCheckFailed) { () throws(PreflightError) in try copy.verifyIntegrity(key: key) }
        expectError(.fingerprintMismatch) { () throws(PreflightError) in try copy.verifyFingerprint() }
    }

    @Test func fingerprintOnlyKeepsExistingIntegrity() throws {
        let protected = try STUNMessage(decoding: request.encoded(integrityKey: key))
        let bytes = try protected.encoded(fingerprint: true)
        let message = try STUNMessage(decoding: bytes)
        try message.verifyIntegrity(key: key)
        try message.verifyFingerprint()
    }

    @Test func longTermSHA256KeyIsSHA256OfTheTriple() throws {
        let credentials = STUNCredentials.longTerm(
            username: "user", realm: "realm", password: "pass", algorithm: .sha256)
        let key = try credentials.key()
        #expect(key.count == 32)
        #expect(key != (try STUNCredentials.longTerm(username: "user", realm: "realm", password: "pass").key()))
        let unknown = STUNCredentials.longTerm(
            username: "user", realm: "realm", password: "pass", algorithm: STUNPasswordAlgorithm(number: 7))
        expectError(.invalidArgument) { () throws(PreflightError) in _ = try unknown.key() }
        let bytes = try request.encoded(credentials: credentials, useSHA256: true)
        try STUNMessage(decoding: bytes).verifyIntegrity(credentials: credentials)
    }

    @Test func oversizedAttributeIsRejected() {
        let message = STUNMessage(type: .sendIndication, attributes: [.data(ArraySlice(repeating: 0, count: 70_000))])
        expectError(.invalidArgument) { () throws(PreflightError) in _ = try message.encoded() }
        let tooMany = STUNMessage(
            type: .sendIndication, attributes: Array(repeating: .data(ArraySlice(repeating: 0, count: 40_000)), count: 2))
        expectError(.invalidArgument) { () throws(PreflightError) in _ = try tooMany.encoded() }
    }
}

extension STUNMessageType {
    static let sendIndication = STUNMessageType(method: .send, class: .indication)
}

@Suite struct STUNIntegrityKeyTests {
    @Test(arguments: rfc5769Vectors)
    func preparedKeyVerifiesAndReencodesTheVectors(_ vector: RFC5769Vector) throws {
        let prepared = try STUNIntegrityKey(credentials: vector.credentials)
        let message = try STUNMessage(decoding: vector.bytes)
        try message.verifyIntegrity(key: prepared)
        #expect(try message.encoded(integrityKey: prepared, fingerprint: vector.hasFingerprint) == vector.bytes)
        let wrong = STUNIntegrityKey(Array("nope".utf8))
        expectError(.integrityCheckFailed) { () throws(PreflightError) in try message.verifyIntegrity(key: wrong) }
    }

    @Test func preparedKeyIsReusableAcrossMessages() throws {
        let raw = Array("shared secret".utf8)
        let prepared = STUNIntegrityKey(raw)
        var rng = SplitMix64(seed: 7)
        for i in 0..<20 {
            let message = STUNMessage(
                type: .bindingRequest, transactionID: .random(using: &rng),
                attributes: [.username("u\(i):v"), .priority(UInt32(i))])
            let useSHA256 = i % 2 == 0
            let bytes = try message.encoded(integrityKey: prepared, useSHA256: useSHA256, fingerprint: true)
            #expect(try bytes == message.encoded(integrityKey: raw, useSHA256: useSHA256, fingerprint: true))
            try STUNMessage(decoding: bytes).verifyIntegrity(key: prepared)
            try STUNMessage(decoding: bytes).verifyIntegrity(key: raw)
        }
    }
}
