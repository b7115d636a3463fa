import PreflightCore
import Testing

/// The inputs of an outside review and their neighbours: attribute lengths that once made the
/// in-place parse read past the datagram (FINGERPRINT or MESSAGE-INTEGRITY of length 0) or let
/// an empty MESSAGE-INTEGRITY-SHA256 pass as "equal". Every one is refused by the layout, the
/// single validation both decoders share.
@Suite struct STUNHostileInputTests {
    /// A Binding request (transaction ID 1…12) whose only attribute is `type` with `value`.
    static func request(attribute type: UInt16, value: [UInt8]) -> [UInt8] {
        let padded = value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        let length = 4 + padded.count
        return [0x00, 0x01, UInt8(length >> 8), UInt8(length & 0xFF), 0x21, 0x12, 0xA4, 0x42]
            + (1...12).map { UInt8($0) }
            + [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + padded
    }

    static func layout(_ bytes: [UInt8]) throws(PreflightError) -> STUNMessageLayout {
        try bytes.withUnsafeBytes { buffer in Result { () throws(PreflightError) in try STUNMessageLayout(parsing: buffer) } }.get()
    }

    static func verifyIntegrity(_ layout: STUNMessageLayout, key: STUNIntegrityKey, _ bytes: [UInt8]) throws(PreflightError) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(PreflightError) in try layout.verifyIntegrity(key: key, in: buffer) } }
            .get()
    }

    static func verifyFingerprint(_ layout: STUNMessageLayout, _ bytes: [UInt8]) throws(PreflightError) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(PreflightError) in try layout.verifyFingerprint(in: buffer) } }.get()
    }

    /// (attribute type, value length) pairs that break the attribute's definition.
    static let badLengths: [(UInt16, Int)] = [
        (0x8028, 0), (0x8028, 3), (0x8028, 8),  // FINGERPRINT must be 4
        (0x0008, 0), (0x0008, 16), (0x0008, 32),  // MESSAGE-INTEGRITY must be 20
        (0x001C, 0), (0x001C, 1), (0x001C, 12), (0x001C, 18), (0x001C, 36),  // -SHA256: 16–32, steps of 4
        (0x0024, 0), (0x0024, 8),  // PRIORITY 4
        (0x0025, 4),  // USE-CANDIDATE 0
        (0x8029, 4), (0x802A, 0),  // ICE-CONTROLLED/-CONTROLLING 8
        (0x000D, 2), (0x0019, 1), (0x000C, 0),  // LIFETIME, REQUESTED-TRANSPORT, CHANNEL-NUMBER 4
        (0x001E, 31),  // USERHASH 32
        (0x0009, 3),  // ERROR-CODE ≥ 4
        (0x000A, 3),  // UNKNOWN-ATTRIBUTES even
    ]

    @Test(arguments: badLengths)
    func attributeLengthsAreValidatedInPlace(type: UInt16, length: Int) {
        let bytes = Self.request(attribute: type, value: [UInt8](repeating: 0, count: length))
        expectError(.malformed, "type 0x\(String(type, radix: 16)) length \(length)") { () throws(PreflightError) in _ = try Self.layout(bytes) }
        // The owning decoder applies the same rule (it is built on the layout).
        expectError(.malformed) { () throws(PreflightError) in _ = try STUNMessage(decoding: bytes) }
    }

    @Test func theReviewersDatagramIsRefused() {
        // 24 bytes: a Binding request whose last attribute is a FINGERPRINT of length 0.
        let datagram = Self.request(attribute: 0x8028, value: [])
        #expect(datagram.count == 24)
        expectError(.malformed) { () throws(PreflightError) in _ = try Self.layout(datagram) }
    }

    @Test(arguments: [
        [0x00, 0x03, 0x00, 0x01, 1, 2, 3, 4],  // family 3
        [0x00, 0x01, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 7, 8],  // IPv4 with 8 address bytes
        [0x00, 0x02, 0x00, 0x01, 1, 2, 3, 4],  // IPv6 with 4 address bytes
        [0x00],  // no family at all
    ] as [[UInt8]])
    func addressFamiliesAndLengthsAreValidated(value: [UInt8]) {
        for type: UInt16 in [0x0001, 0x0020, 0x0012, 0x0016, 0x8023] {
            expectError(.malformed) { () throws(PreflightError) in _ = try Self.layout(Self.request(attribute: type, value: value)) }
        }
    }

    @Test func integrityIsAcceptedOnlyAtAFullValidatedLength() throws {
        let key = STUNIntegrityKey(Array("0123456789abcdefghijkl".utf8))
        let message = STUNMessage(
            type: STUNMessageType(method: .binding, class: .request), transactionID: STUNTransactionID(high: 1, low: 2),
            attributes: [.username("edge:client")])
        let signed = try message.encoded(integrityKey: key, useSHA256: true, fingerprint: true)
        let layout = try Self.layout(signed)
        try Self.verifyIntegrity(layout, key: key, signed)
        // The same message signed with another key fails; so does one bit flipped in the HMAC.
        let other = STUNIntegrityKey(Array("another-password-abcdef".utf8))
        expectError(.integrityCheckFailed) { () throws(PreflightError) in try Self.verifyIntegrity(layout, key: other, signed) }
        var flipped = signed
        let offset = try #require(layout.messageIntegritySHA256Offset)
        flipped[offset + 4 + 31] ^= 1
        // FINGERPRINT no longer matches either; integrity is judged on its own here.
        let flippedLayout = try Self.layout(flipped)
        expectError(.integrityCheckFailed) { () throws(PreflightError) in try Self.verifyIntegrity(flippedLayout, key: key, flipped) }
        // A buffer other than the one parsed is refused instead of read out of bounds.
        expectError(.integrityCheckFailed) { () throws(PreflightError) in try Self.verifyIntegrity(layout, key: key, Array(signed.prefix(24))) }
        expectError(.fingerprintMismatch) { () throws(PreflightError) in try Self.verifyFingerprint(layout, Array(signed.prefix(24))) }
    }

    @Test func untrustedTextIsCutAndEscaped() {
        let long = String(repeating: "x", count: 10_000)
        let excerpt = UntrustedText.excerpt(long)
        #expect(excerpt.hasPrefix(String(repeating: "x", count: 64)))
        #expect(excerpt.hasSuffix("…(+9936 bytes)"))
        #expect(UntrustedText.quoted("a\"b\nc\u{1b}") == #""a\"b\nc\u{1b}""#)
        #expect(UntrustedText.excerpt("short") == "short")
        // One character of 60 000 combining marks is cut by scalars, not kept whole.
        let marks = "a" + String(repeating: "\u{301}", count: 60_000)
        #expect(UntrustedText.excerpt(marks).utf8.count < 300)
        // Bidirectional overrides are escaped, so a log line cannot be displayed reordered.
        #expect(UntrustedText.excerpt("a\u{202E}b") == #"a\u{202e}b"#)
    }
}
