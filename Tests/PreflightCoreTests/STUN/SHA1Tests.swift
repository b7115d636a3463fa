import CPreflightSHA1
import Crypto
import Foundation
@testable import PreflightCore
import PropertyBased
import Testing

@Suite struct SHA1Tests {
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func sha1(_ parts: [[UInt8]]) -> String {
        var hasher = PreflightCore.SHA1()
        for part in parts { part.withUnsafeBytes { hasher.update(bufferPointer: $0) } }
        return hasher.finalize { hex($0) }
    }

    // FIPS 180 examples, and the published digest of the empty message.
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func fipsVectors(message: String, digest: String) {
        #expect(Self.sha1([Array(message.utf8)]) == digest)
    }

    @Test func millionAs() {
        // FIPS 180: one million repetitions of "a", fed in uneven pieces.
        var parts = [[UInt8]](repeating: [UInt8](repeating: 0x61, count: 999), count: 1001)
        parts.append([UInt8](repeating: 0x61, count: 1_000_000 - 999 * 1001))
        #expect(Self.sha1(parts) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func agreesWithSwiftCryptoOnRandomInputsAndSplits() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...300), Gen.int(in: 0...300)) { bytes, split in
            let cut = min(split, bytes.count)
            #expect(Self.sha1([Array(bytes[..<cut]), Array(bytes[cut...])]) == Self.hex(Insecure.SHA1.hash(data: bytes)))
        }
    }

    @Test func hardwareAndPortablePathsAgree() async {
        // On a processor with SHA extensions this compares the two C paths; elsewhere both are portable.
        await propertyCheck(count: 100, input: Gen.uint8().array(of: 64...64), Gen.uint32()) { block, seed in
            var hardware: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, seed]
            var portable = hardware
            preflight_sha1_compress(&hardware, block, 1)
            preflight_sha1_compress_portable(&portable, block, 1)
            #expect(hardware == portable)
        }
    }
}
