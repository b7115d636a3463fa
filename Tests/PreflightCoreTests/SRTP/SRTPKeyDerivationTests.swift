@testable import PreflightCore
import Testing

/// The AES-CM PRF of RFC 3711 §4.3.3 against RFC 3711 Appendix B.3 (112-bit salt, rate 0).
@Suite struct SRTPKeyDerivationTests {
    static let masterKey = hexBytes("E1F97A0D3E018BE0D64FA32C06DE4139")
    static let masterSalt = hexBytes("0EC675AD498AFEEBB6960B3AABE6")

    @Test(arguments: [
        (SRTPKeyDerivation.Label.rtpEncryption, "C61E7A93744F39EE10734AFE3FF7A087"),
        (.rtpSalt, "30CBBC08863D8C85D49DB34A9AE1"),
        // 94 bytes: six AES blocks, so the block counter is exercised too.
        (.rtpAuthentication, """
            CEBE321F6FF7716B6FD4AB49AF256A156D38BAA48F0A0ACF3C34E2359E6CDBCE
            E049646C43D9327AD175578EF72270986371C10C9A369AC2F94A8C5FBCDDDC25
            6D6E919A48B610EF17C2041E474035766B68642C59BBFC2F34DB60DBDFB2
            """),
    ])
    func appendixB3(label: SRTPKeyDerivation.Label, expected: String) throws {
        let expectedBytes = hexBytes(expected)
        let derived = try SRTPKeyDerivation.derive(
            label, masterKey: Self.masterKey, masterSalt: Self.masterSalt, count: expectedBytes.count)
        #expect(derived == expectedBytes)
    }

    @Test func aShorterSaltIsPaddedOnTheRight() throws {
        // RFC 7714's 96-bit salt: the same as a 112-bit salt whose last two bytes are zero.
        let short = Array(Self.masterSalt.prefix(12))
        let padded = short + [0, 0]
        for label in [SRTPKeyDerivation.Label.rtpEncryption, .rtpSalt, .rtcpEncryption, .rtcpSalt] {
            let fromShort = try SRTPKeyDerivation.derive(label, masterKey: Self.masterKey, masterSalt: short, count: 16)
            let fromPadded = try SRTPKeyDerivation.derive(label, masterKey: Self.masterKey, masterSalt: padded, count: 16)
            #expect(fromShort == fromPadded)
        }
    }

    @Test func labelsGiveDifferentKeys() throws {
        let material = try SRTPKeyingMaterial(masterKey: Self.masterKey, masterSalt: Array(Self.masterSalt.prefix(12)))
        let keys = try SRTPSessionKeys(deriving: material)
        #expect(keys.rtpKey.count == 16 && keys.rtcpKey.count == 16)
        #expect(keys.rtpSalt.count == 12 && keys.rtcpSalt.count == 12)
        #expect(keys.rtpKey != keys.rtcpKey)
        #expect(keys.rtpSalt != keys.rtcpSalt)
        let expectedKey = try SRTPKeyDerivation.derive(
            .rtcpEncryption, masterKey: Self.masterKey, masterSalt: material.masterSalt, count: 16)
        #expect(keys.rtcpKey == expectedKey)
    }

    @Test func refusesBadLengths() {
        #expect(throws: PreflightError.self) {
            _ = try SRTPKeyDerivation.derive(.rtpSalt, masterKey: Self.masterKey, masterSalt: [UInt8](repeating: 0, count: 15), count: 12)
        }
        #expect(throws: PreflightError.self) {
            _ = try SRTPKeyDerivation.derive(.rtpSalt, masterKey: [1, 2, 3], masterSalt: Self.masterSalt, count: 12)
        }
    }
}
