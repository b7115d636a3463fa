import PreflightCore
import Testing

@Suite struct SRTPKeyingMaterialTests {
    @Test func base64RoundTrips() throws {
        let material = SRTPKeyingMaterial.random()
        #expect(material.masterKey.count == 16)
        #expect(material.masterSalt.count == 12)
        let text = material.base64
        #expect(text.count == 40)
        let parsed = try SRTPKeyingMaterial(base64: text)
        #expect(parsed.masterKey == material.masterKey)
        #expect(parsed.masterSalt == material.masterSalt)
        #expect(SRTPProfile(rawValue: "AEAD_AES_128_GCM") == .aeadAES128GCM)
    }

    @Test func randomMaterialDiffers() {
        #expect(SRTPKeyingMaterial.random().base64 != SRTPKeyingMaterial.random().base64)
    }

    @Test func knownEncoding() throws {
        // 28 bytes 0x00…0x1B: key 00…0F, salt 10…1B.
        let material = try SRTPKeyingMaterial(masterKey: Array(0...15), masterSalt: Array(16...27))
        #expect(material.base64 == "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw==")
    }

    @Test(arguments: [
        "", "not base64!", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBka",  // 27 bytes
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxw=",  // 29 bytes
        String(repeating: "A", count: 100_000),
    ])
    func refusesWrongSignalingForms(text: String) {
        #expect { try SRTPKeyingMaterial(base64: text) } throws: { ($0 as? PreflightError)?.code == .malformed }
    }

    @Test func refusesWrongLengths() {
        #expect { try SRTPKeyingMaterial(masterKey: Array(0...14), masterSalt: Array(0...11)) } throws: {
            ($0 as? PreflightError)?.code == .invalidArgument
        }
        #expect { try SRTPKeyingMaterial(masterKey: Array(0...15), masterSalt: Array(0...13)) } throws: {
            ($0 as? PreflightError)?.code == .invalidArgument
        }
        #expect { try SRTPSessionKeys(rtpKey: Array(0...15), rtpSalt: [], rtcpKey: Array(0...15), rtcpSalt: Array(0...11)) } throws: {
            ($0 as? PreflightError)?.code == .invalidArgument
        }
    }

    @Test func descriptionsHideTheKey() throws {
        let material = SRTPKeyingMaterial.random()
        #expect(!material.description.contains(material.base64))
        let keys = try SRTPSessionKeys(deriving: material)
        #expect(keys.description == "SRTPSessionKeys(AEAD_AES_128_GCM, redacted)")
        #expect(material.description == "SRTPKeyingMaterial(AEAD_AES_128_GCM, redacted)")
    }
}
