import Crypto
import Foundation
@testable import PreflightCore
import PropertyBased
import Testing

@Suite struct KeyedHashAndCRCTests {
    @Test func keyedHashAgreesWithSwiftCryptoHMAC() async {
        // Keys shorter and longer than the 64-byte block, messages of any length.
        await propertyCheck(count: 200, input: Gen.uint8().array(of: 0...100), Gen.uint8().array(of: 0...200)) { key, message in
            let symmetricKey = SymmetricKey(data: key)
            let sha1 = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: symmetricKey))
            let sha256 = Array(HMAC<SHA256>.authenticationCode(for: message, using: symmetricKey))
            #expect(Self.mac(KeyedHash<PreflightCore.SHA1>(key: key), message) == sha1)
            #expect(Self.mac(KeyedHash<SHA256>(key: key), message) == sha256)
        }
    }

    static func mac<H: IncrementalHash>(_ keyed: KeyedHash<H>, _ message: [UInt8]) -> [UInt8] {
        keyed.authenticate({ hasher in message.withUnsafeBytes { hasher.update(bufferPointer: $0) } }) { Array($0) }
    }

    @Test func crcCheckValue() {
        // The CRC-32/ISO-HDLC check value: CRC of the ASCII digits "123456789".
        #expect(CRC32.checksum(Array("123456789".utf8)[...]) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test func crcAgreesWithBitwiseReference() async {
        func reference(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return ~crc
        }
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...100), Gen.int(in: 0...7)) { bytes, drop in
            // Slices with a start index other than 0 exercise the unaligned tail too.
            let slice = bytes.dropFirst(min(drop, bytes.count))
            #expect(CRC32.checksum(slice) == reference(Array(slice)))
        }
    }
}
