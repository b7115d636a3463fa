import PreflightCore
import Testing

/// SDP candidate parsing against inputs the fuzzer found (Fuzz/Sources/FuzzICECandidate): the text
/// a parsed candidate prints must parse back to the same candidate.
@Suite struct ICECandidateSDPTests {
    /// FuzzICECandidate's first find: the foundation starts with U+064D, a combining mark, which
    /// merged with the ":" of the printed "candidate:" prefix, so the prefix was no longer stripped
    /// when the printed text was parsed again. The foundation is not made of ice-chars: refused.
    @Test func foundationOfCombiningMarksIsRefused() {
        let bytes: [UInt8] = [
            0xD9, 0x8D, 0x8D, 0x63, 0x6E, 0x34, 0x20, 0x31, 0x20, 0x75, 0x64, 0x70, 0x20, 0x30, 0x20, 0x2D,
            0x31, 0x2E, 0x39, 0x63, 0xD9, 0x20, 0x33, 0x34, 0x37, 0x38, 0x20, 0x74, 0x79, 0x70, 0x20, 0x72,
            0x6C, 0x20, 0x72, 0x52, 0x20, 0x8D, 0x63, 0xD9, 0x8D, 0x8D, 0xD9, 0x9C, 0xDF, 0x30, 0x2E, 0x20,
            0x72, 0x70, 0x6F, 0x72, 0x74, 0x20, 0x30, 0x20, 0xD9, 0x00, 0x00, 0x9C, 0x64, 0x20, 0x31,
        ]
        #expect(throws: PreflightError.self) { try ICECandidate(sdpAttribute: String(decoding: bytes, as: UTF8.self)) }
    }

    @Test(arguments: ["candidate:é 1 udp 1 198.18.0.1 9 typ host", "candidate:a:b 1 udp 1 198.18.0.1 9 typ host"])
    func foundationMustBeICEChars(text: String) {
        #expect(throws: PreflightError.self) { try ICECandidate(sdpAttribute: text) }
    }

    /// Fields are split on the space scalar: a field that starts with a combining mark stays a
    /// field of its own, before and after printing.
    @Test func fieldStartingWithACombiningMarkRoundTrips() throws {
        let candidate = try ICECandidate(sdpAttribute: "candidate:1 1 udp 7 \u{301}x 9 typ host raddr \u{301}y rport 1")
        #expect(candidate.priority == 7)
        #expect(candidate.address == "\u{301}x")
        #expect(candidate.relatedAddress == "\u{301}y")
        #expect(try ICECandidate(sdpAttribute: candidate.sdpAttribute) == candidate)
    }

    @Test func typeStartingWithACombiningMarkRoundTrips() throws {
        let candidate = try ICECandidate(sdpAttribute: "a=candidate:1 1 udp 7 198.18.0.1 9 typ \u{301}h")
        #expect(candidate.foundation == "1")
        #expect(try ICECandidate(sdpAttribute: candidate.sdpAttribute) == candidate)
    }
}
