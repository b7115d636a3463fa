import PreflightCore
import PropertyBased
import Testing

/// Random RTP/RTCP values and byte strings for the property tests.
enum RTPRandom {
    typealias RNG = any SeededRandomNumberGenerator

    static func bytes(_ count: ClosedRange<Int>, _ rng: inout RNG) -> [UInt8] {
        let n = Int.random(in: count, using: &rng)
        return (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    static func uint32(_ rng: inout RNG) -> UInt32 { UInt32.random(in: 0...UInt32.max, using: &rng) }

    /// A header extension of a random kind with random elements, and the elements it was built from
    /// (`nil` for an opaque profile).
    static func headerExtension(_ rng: inout RNG) -> (RTPHeaderExtension, [RTPHeaderExtension.Element]?)? {
        switch Int.random(in: 0...3, using: &rng) {
        case 0:
            return nil
        case 1:
            let elements = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
                RTPHeaderExtension.Element(id: UInt8.random(in: 1...14, using: &rng), data: bytes(1...16, &rng))
            }
            return ((try? RTPHeaderExtension.oneByte(elements)).map { ($0, elements) })
        case 2:
            let elements = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
                RTPHeaderExtension.Element(id: UInt8.random(in: 1...255, using: &rng), data: bytes(0...40, &rng))
            }
            let appBits = UInt8.random(in: 0...15, using: &rng)
            return ((try? RTPHeaderExtension.twoByte(elements, appBits: appBits)).map { ($0, elements) })
        default:
            var profile = UInt16.random(in: 0...UInt16.max, using: &rng)
            if profile == RTPHeaderExtension.oneByteProfile || profile & 0xFFF0 == 0x1000 { profile = 0x0001 }
            let words = Int.random(in: 0...8, using: &rng)
            return (RTPHeaderExtension(profile: profile, data: bytes(4 * words...4 * words, &rng)), nil)
        }
    }

    struct RTPCase: Sendable, CustomStringConvertible {
        var packet: RTPPacket
        var elements: [RTPHeaderExtension.Element]?
        var description: String { "\(packet) elements: \(String(describing: elements))" }
    }

    static let rtpPacket = Generator<RTPCase, Shrink.None<RTPCase>> { rng in
        let ext = headerExtension(&rng)
        let csrcs = (0..<Int.random(in: 0...15, using: &rng)).map { _ in uint32(&rng) }
        let packet = RTPPacket(
            marker: Bool.random(using: &rng),
            payloadType: UInt8.random(in: 0...127, using: &rng),
            sequenceNumber: UInt16.random(in: 0...UInt16.max, using: &rng),
            timestamp: uint32(&rng),
            ssrc: uint32(&rng),
            csrcs: csrcs,
            headerExtension: ext?.0,
            payload: bytes(0...200, &rng)[...],
            paddingCount: Bool.random(using: &rng) ? 0 : UInt8.random(in: 1...255, using: &rng)
        )
        return RTPCase(packet: packet, elements: ext?.1)
    }

    static func reportBlock(_ rng: inout RNG) -> RTCPReportBlock {
        RTCPReportBlock(
            ssrc: uint32(&rng),
            fractionLost: UInt8.random(in: 0...255, using: &rng),
            cumulativeLost: Int32.random(
                in: RTCPReportBlock.minimumCumulativeLost...RTCPReportBlock.maximumCumulativeLost, using: &rng),
            extendedHighestSequenceNumber: uint32(&rng),
            interarrivalJitter: uint32(&rng),
            lastSenderReport: uint32(&rng),
            delaySinceLastSenderReport: uint32(&rng)
        )
    }

    /// Padding that keeps a body of `bodyLength` bytes on a 32-bit boundary, or none.
    static func padding(bodyLength: Int, _ rng: inout RNG) -> UInt8 {
        let needed = (4 - bodyLength % 4) % 4
        let extraWords = Int.random(in: 0...3, using: &rng)
        if needed == 0, Bool.random(using: &rng) { return 0 }
        return UInt8(needed == 0 ? 4 * (extraWords + 1) : needed + 4 * extraWords)
    }

    static func blocks(_ rng: inout RNG) -> [RTCPReportBlock] {
        (0..<Int.random(in: 0...31, using: &rng)).map { _ in reportBlock(&rng) }
    }

    /// A random RTCP packet; `allowPadding` false gives one without the P bit.
    static func rtcpPacket(kind: Int, allowPadding: Bool, _ rng: inout RNG) -> RTCPPacket {
        let pad: (Int, inout RNG) -> UInt8 = { length, rng in allowPadding ? padding(bodyLength: length, &rng) : 0 }
        switch kind {
        case 0:
            let ext = bytes(0...3, &rng).flatMap { _ in [UInt8](repeating: 0xE0, count: 4) }
            return .senderReport(
                RTCPSenderReport(
                    ssrc: uint32(&rng), ntpTimestamp: NTPTimestamp(seconds: uint32(&rng), fraction: uint32(&rng)),
                    rtpTimestamp: uint32(&rng), packetCount: uint32(&rng), octetCount: uint32(&rng),
                    reportBlocks: blocks(&rng), profileExtension: ext[...], paddingCount: pad(0, &rng)
                )
            )
        case 1:
            let ext = bytes(0...3, &rng).flatMap { _ in [UInt8](repeating: 0xE1, count: 4) }
            return .receiverReport(
                RTCPReceiverReport(
                    ssrc: uint32(&rng), reportBlocks: blocks(&rng), profileExtension: ext[...],
                    paddingCount: pad(0, &rng))
            )
        case 2:
            let chunks = (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                RTCPSourceDescription.Chunk(
                    ssrc: uint32(&rng),
                    items: (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                        RTCPSourceDescription.Item(
                            type: UInt8.random(in: 1...255, using: &rng), value: bytes(0...30, &rng)[...])
                    }
                )
            }
            return .sourceDescription(RTCPSourceDescription(chunks: chunks, paddingCount: pad(0, &rng)))
        case 3:
            let ssrcs = (0..<Int.random(in: 0...31, using: &rng)).map { _ in uint32(&rng) }
            let reason = Bool.random(using: &rng) ? bytes(0...255, &rng)[...] : nil
            return .goodbye(RTCPGoodbye(ssrcs: ssrcs, reasonBytes: reason, paddingCount: pad(0, &rng)))
        default:
            let payload = bytes(0...64, &rng)
            // Keep the type away from the four decoded ones so it comes back as `.unknown`.
            var type = UInt8.random(in: 0...255, using: &rng)
            if (200...203).contains(type) { type = 204 }
            let padding = allowPadding ? padding(bodyLength: payload.count, &rng) : 0
            let aligned =
                payload.count % 4 == 0 || padding > 0
                ? payload : payload + [UInt8](repeating: 0, count: 4 - payload.count % 4)
            return .unknown(
                RTCPUnknownPacket(
                    packetType: type, count: UInt8.random(in: 0...31, using: &rng), payload: aligned[...],
                    paddingCount: padding)
            )
        }
    }

    /// A compound packet that passes the RFC 3550 A.2 checks: SR or RR first, padding only last.
    static let compound = Generator<RTCPCompoundPacket, Shrink.None<RTCPCompoundPacket>> { rng in
        let count = Int.random(in: 1...5, using: &rng)
        var packets: [RTCPPacket] = []
        for index in 0..<count {
            let kind = index == 0 ? Int.random(in: 0...1, using: &rng) : Int.random(in: 0...4, using: &rng)
            packets.append(rtcpPacket(kind: kind, allowPadding: index == count - 1, &rng))
        }
        return RTCPCompoundPacket(packets)
    }

    /// Random bytes, biased towards starting with a plausible RTP or RTCP header so decoders get past
    /// the first checks.
    static let noise = Generator<[UInt8], Shrink.None<[UInt8]>> { rng in
        var result = bytes(0...120, &rng)
        if result.count >= 4, Bool.random(using: &rng) {
            result[0] = 0x80 | result[0] & 0x3F  // version 2
            if Bool.random(using: &rng) {
                result[1] = UInt8.random(in: 200...204, using: &rng)
                result[2] = 0
                result[3] = UInt8.random(in: 0...UInt8(min(40, result.count / 4)), using: &rng)
            }
        }
        return result
    }
}

@Suite struct RTPPropertyTests {
    typealias F = RTPFixtures

    @Test func randomRTPPacketsRoundTrip() async {
        await propertyCheck(count: 300, input: RTPRandom.rtpPacket) { item in
            let packet = item.packet
            let bytes = try packet.encoded()
            #expect(bytes.count == packet.encodedCount)
            let decoded = try RTPPacket(decoding: bytes)
            #expect(decoded == packet)
            if let elements = item.elements {
                #expect(try decoded.headerExtension?.elements() == elements)
                for element in elements {
                    // The first element with an ID wins.
                    let first = elements.first { $0.id == element.id }
                    #expect(decoded.headerExtension?.element(id: element.id) == first?.data)
                }
            }
            var appended: [UInt8] = [0x55]
            try decoded.encode(into: &appended)
            #expect(appended == [0x55] + bytes)
        }
    }

    @Test func randomRTCPPacketsRoundTrip() async {
        await propertyCheck(count: 300, input: RTPRandom.compound) { compound in
            let bytes = try compound.encoded()
            #expect(bytes.count % 4 == 0)
            let decoded = try RTCPCompoundPacket(decoding: bytes, strict: true)
            #expect(decoded == compound)
            #expect(try decoded.encoded() == bytes)
            // Each packet also decodes on its own, through the enum and through its own type.
            for packet in compound.packets {
                let single = try packet.encoded()
                #expect(try RTCPPacket(decoding: single) == packet)
                switch packet {
                case .senderReport(let sr): #expect(try RTCPSenderReport(decoding: single) == sr)
                case .receiverReport(let rr): #expect(try RTCPReceiverReport(decoding: single) == rr)
                case .sourceDescription(let sdes): #expect(try RTCPSourceDescription(decoding: single) == sdes)
                case .goodbye(let bye): #expect(try RTCPGoodbye(decoding: single) == bye)
                case .unknown(let unknown): #expect(try RTCPUnknownPacket(decoding: single) == unknown)
                }
            }
        }
    }

    @Test func randomBytesNeverCrashAndReencodeStably() async {
        await propertyCheck(count: 1000, input: RTPRandom.noise) { bytes in
            // RTP
            do {
                let packet = try RTPPacket(decoding: bytes)
                let again = try packet.encoded()
                #expect(again.count == bytes.count)
                #expect(try RTPPacket(decoding: again) == packet)
                _ = try? packet.headerExtension?.elements()
            } catch {
                #expect(F.isDecodeError(error), "\(error)")
            }
            // RTCP, compound and single
            for strict in [false, true] {
                do {
                    let compound = try RTCPCompoundPacket(decoding: bytes, strict: strict)
                    let again = try compound.encoded()
                    #expect(again.count == bytes.count)
                    #expect(try RTCPCompoundPacket(decoding: again, strict: strict) == compound)
                } catch {
                    #expect(F.isDecodeError(error), "\(error)")
                }
            }
            let decoders: [([UInt8]) throws -> Void] = [
                { _ = try RTCPPacket(decoding: $0) },
                { _ = try RTCPSenderReport(decoding: $0) },
                { _ = try RTCPReceiverReport(decoding: $0) },
                { _ = try RTCPSourceDescription(decoding: $0) },
                { _ = try RTCPGoodbye(decoding: $0) },
                { _ = try RTCPUnknownPacket(decoding: $0) },
            ]
            for decode in decoders {
                let code = F.errorCode { try decode(bytes) }
                #expect(code == nil || code == .truncated || code == .malformed)
            }
            // Header extension element parsing on arbitrary data.
            for profile: UInt16 in [0xBEDE, 0x1000, 0x100F] {
                let ext = RTPHeaderExtension(profile: profile, data: bytes)
                let code = F.errorCode { _ = try ext.elements() }
                #expect(code == nil || code == .truncated || code == .malformed)
                if code == nil {
                    for element in try ext.elements() {
                        #expect(ext.element(id: element.id) != nil)
                    }
                } else {
                    _ = ext.element(id: 1)
                }
            }
        }
    }

    @Test func randomTruncationsOfValidRTPNeverCrash() async {
        await propertyCheck(count: 300, input: RTPRandom.rtpPacket, Gen.double(in: 0...1)) { item, cut in
            let bytes = try item.packet.encoded()
            let length = Int(Double(bytes.count) * cut)
            let headerSize = item.packet.encodedCount - item.packet.payload.count - Int(item.packet.paddingCount)
            let code = F.errorCode { _ = try RTPPacket(decoding: bytes[..<length]) }
            if length < headerSize {
                #expect(code == .truncated)
            } else {
                #expect(code == nil || code == .malformed)
            }
        }
    }

    @Test func randomTruncationsOfValidRTCPFail() async {
        await propertyCheck(count: 300, input: RTPRandom.compound, Gen.double(in: 0...1)) { compound, cut in
            let bytes = try compound.encoded()
            let length = min(Int(Double(bytes.count) * cut), bytes.count - 1)
            var boundaries: Set<Int> = []
            var offset = 0
            for packet in compound.packets {
                offset += try packet.encoded().count
                boundaries.insert(offset)
            }
            let code = F.errorCode { _ = try RTCPCompoundPacket(decoding: bytes[..<length]) }
            if boundaries.contains(length) {
                #expect(code == nil)
            } else {
                #expect(code == .truncated || code == .malformed)
            }
            if let first = compound.packets.first {
                let single = try first.encoded()
                let singleCut = min(length, single.count - 1)
                let singleCode = F.errorCode { _ = try RTCPPacket(decoding: single[..<singleCut]) }
                #expect(singleCode == .truncated || singleCode == .malformed)
            }
        }
    }

    @Test func mutatedValidRTCPNeverCrashes() async {
        await propertyCheck(count: 300, input: RTPRandom.compound, Gen.int(in: 0...10_000), Gen.uint8()) {
            compound, position, value in
            var bytes = try compound.encoded()
            bytes[position % bytes.count] = value
            do {
                let decoded = try RTCPCompoundPacket(decoding: bytes)
                #expect(try RTCPCompoundPacket(decoding: decoded.encoded()) == decoded)
            } catch {
                #expect(F.isDecodeError(error), "\(error)")
            }
        }
    }
}
