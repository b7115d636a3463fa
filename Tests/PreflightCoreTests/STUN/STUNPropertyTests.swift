import PreflightCore
import PropertyBased
import Testing

/// Builds random but valid STUN values from a seeded generator.
struct RandomSTUN {
    var rng: SplitMix64

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func bytes(_ range: ClosedRange<Int>) -> [UInt8] {
        (0..<int(range)).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    mutating func text(maxScalars: Int) -> String {
        let alphabet: [Unicode.Scalar] = ["a", "Z", "0", ":", " ", "/", "\u{E9}", "\u{30DE}", "\u{1F680}", "\u{0}"]
        var view = String.UnicodeScalarView()
        for _ in 0..<int(0...maxScalars) { view.append(alphabet[int(0...(alphabet.count - 1))]) }
        return String(view)
    }

    mutating func address() -> TransportAddress {
        let port = UInt16.random(in: 0...0xFFFF, using: &rng)
        if Bool.random(using: &rng) {
            return TransportAddress(bytes: bytes(4...4), port: port) ?? TransportAddress(ipv4: 0, 0, 0, 0, port: port)
        }
        return TransportAddress(bytes: bytes(16...16), port: port) ?? TransportAddress(ipv4: 0, 0, 0, 0, port: port)
    }

    static let knownTypes: Set<UInt16> = [
        0x0001, 0x0006, 0x0008, 0x0009, 0x000A, 0x000C, 0x000D, 0x0012, 0x0013, 0x0014, 0x0015, 0x0016, 0x0019, 0x001C,
        0x001D, 0x001E, 0x0020, 0x0024, 0x0025, 0x8002, 0x8022, 0x8023, 0x8028, 0x8029, 0x802A,
    ]

    /// A random attribute other than MESSAGE-INTEGRITY(-SHA256) and FINGERPRINT, which the encoder writes.
    mutating func attribute() -> STUNAttribute {
        switch int(0...24) {
        case 0: return .mappedAddress(address())
        case 1: return .xorMappedAddress(address())
        case 2: return .username(text(maxScalars: 20))
        case 3: return .userhash(ArraySlice(bytes(32...32)))
        case 4: return .errorCode(STUNErrorCode(code: int(300...699), reason: text(maxScalars: 30)))
        case 5: return .realm(text(maxScalars: 20))
        case 6: return .nonce(text(maxScalars: 40))
        case 7: return .software(text(maxScalars: 20))
        case 8: return .alternateServer(address())
        case 9: return .unknownAttributes((0..<int(0...5)).map { _ in UInt16.random(in: 0...0xFFFF, using: &rng) })
        case 10: return .passwordAlgorithm(STUNPasswordAlgorithm(number: UInt16(int(0...3)), parameters: bytes(0...6)))
        case 11:
            return .passwordAlgorithms(
                (0..<int(0...3)).map { _ in STUNPasswordAlgorithm(number: UInt16(int(0...3)), parameters: bytes(0...6)) })
        case 12: return .priority(UInt32.random(in: 0...UInt32.max, using: &rng))
        case 13: return .useCandidate
        case 14: return .iceControlled(rng.next())
        case 15: return .iceControlling(rng.next())
        case 16: return .xorPeerAddress(address())
        case 17: return .xorRelayedAddress(address())
        case 18: return .lifetime(UInt32.random(in: 0...UInt32.max, using: &rng))
        case 19: return .requestedTransport(UInt8.random(in: 0...255, using: &rng))
        case 20: return .data(ArraySlice(bytes(0...64)))
        case 21: return .channelNumber(UInt16.random(in: 0...0xFFFF, using: &rng))
        default:
            var type = UInt16.random(in: 0...0xFFFF, using: &rng)
            while Self.knownTypes.contains(type) { type &+= 1 }
            return .unknown(type: type, value: ArraySlice(bytes(0...24)))
        }
    }

    mutating func message() -> STUNMessage {
        let type = STUNMessageType(
            method: STUNMethod(rawValue: UInt16.random(in: 0...0xFFF, using: &rng)),
            class: STUNClass.allCases[int(0...3)])
        return STUNMessage(
            type: type, transactionID: .random(using: &rng), attributes: (0..<int(0...8)).map { _ in attribute() },
            padding: Bool.random(using: &rng) ? 0 : UInt8.random(in: 0...255, using: &rng))
    }
}

@Suite struct STUNPropertyTests {
    @Test func randomMessagesRoundTrip() async {
        await propertyCheck(count: 300, input: Gen.uint64()) { seed in
            var random = RandomSTUN(rng: SplitMix64(seed: seed))
            let message = random.message()
            do {
                let bytes = try message.encoded()
                let decoded = try STUNMessage(decoding: bytes)
                #expect(decoded == message)
                #expect(decoded.type == message.type)
                #expect(try decoded.encoded() == bytes)
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    @Test func randomProtectedMessagesVerify() async {
        await propertyCheck(count: 300, input: Gen.uint64()) { seed in
            var random = RandomSTUN(rng: SplitMix64(seed: seed))
            let message = random.message()
            let key = random.bytes(0...40)
            let useSHA256 = Bool.random(using: &random.rng)
            do {
                let bytes = try message.encoded(integrityKey: key, useSHA256: useSHA256, fingerprint: true)
                let decoded = try STUNMessage(decoding: bytes)
                try decoded.verifyIntegrity(key: key)
                try decoded.verifyFingerprint()
                #expect(Array(decoded.attributes.dropLast(2)) == message.attributes)
                #expect(decoded.ignoredAttributes.isEmpty)
                // One flipped bit anywhere is caught.
                let bit = random.int(0...(bytes.count * 8 - 1))
                var flipped = bytes
                flipped[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
                let rejected = throwsError { () throws(PreflightError) in
                    let m = try STUNMessage(decoding: flipped)
                    try m.verifyIntegrity(key: key)
                    try m.verifyFingerprint()
                }
                #expect(rejected, "seed \(seed): bit \(bit) flipped was accepted")
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    @Test func randomBytesNeverCrash() async {
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...96)) { bytes in
            let message = try? STUNMessage(decoding: bytes)
            if let message {
                _ = throwsError { () throws(PreflightError) in try message.verifyIntegrity(key: [1, 2, 3]) }
                _ = throwsError { () throws(PreflightError) in try message.verifyFingerprint() }
            }
            _ = try? ChannelData(decoding: bytes)
            _ = try? ChannelData(decoding: bytes, padded: true)
            let kind = PacketKind.classify(bytes)
            #expect(bytes.isEmpty ? kind == .unknown : true)
        }
    }

    @Test func randomAttributeBodiesNeverCrash() async {
        // A valid header over random attribute bytes reaches the attribute decoders.
        await propertyCheck(count: 1000, input: Gen.uint8().array(of: 0...25), Gen.uint8(in: 0...3)) { words, typeLow in
            let body = words.count % 4 == 0 ? words : words + [UInt8](repeating: 0, count: 4 - words.count % 4)
            var bytes = hexBytes("0001 0000 2112a442 b7e7a701 bc34d686 fa87dfae")
            bytes[3] = UInt8(body.count)
            // Make the attribute type a known one often enough.
            var mutated = body
            if mutated.count >= 2 {
                let known: [UInt16] = [0x0001, 0x0020, 0x0009, 0x001D, 0x8002, 0x000A]
                let type = known[Int(typeLow) % known.count]
                mutated[0] = UInt8(type >> 8)
                mutated[1] = UInt8(type & 0xFF)
            }
            let decoded = try? STUNMessage(decoding: bytes + mutated)
            if let decoded {
                #expect((try? decoded.encoded()) != nil)
            }
        }
    }

    @Test func truncatedRandomMessagesAreTruncated() async {
        await propertyCheck(count: 200, input: Gen.uint64()) { seed in
            var random = RandomSTUN(rng: SplitMix64(seed: seed))
            guard let bytes = try? random.message().encoded(integrityKey: [1], fingerprint: true) else {
                Issue.record("seed \(seed) did not encode")
                return
            }
            let cut = random.int(0...(bytes.count - 1))
            expectError(.truncated, "seed \(seed) cut at \(cut)") { () throws(PreflightError) in
                _ = try STUNMessage(decoding: bytes[0..<cut])
            }
        }
    }
}
