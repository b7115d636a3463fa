import PreflightCore

extension CoreBenchmarks {
    /// SRTP with AEAD_AES_128_GCM (RFC 7714) as a call's media path would use it: a sender
    /// protects a 172-byte PCMU packet (12-byte header, 160-byte payload) and a receiver checks
    /// and decrypts it, with index estimation and the replay window; sequence numbers run on,
    /// wrapping, so the rollover counter advances. No target yet: a figure for the media path.
    static func srtpProtectAndUnprotect() -> Runner {
        let material = SRTPKeyingMaterial.random()
        var sender = try? SRTPContext(keyingMaterial: material)
        var receiver = try? SRTPContext(keyingMaterial: material)
        let payload = MuLaw.encode(TestSignal().frame(3))
        var sequenceNumber: UInt16 = 0
        return Runner(
            benchmark: Benchmark(name: "SRTP protect + unprotect (AES-128-GCM, 172-byte PCMU)", unit: "packets/s", target: nil),
            batch: 1024
        ) { batch in
            var checksum = 0
            for _ in 0..<batch {
                let packet = RTPPacket(
                    payloadType: 0, sequenceNumber: sequenceNumber, timestamp: UInt32(sequenceNumber) &* 160,
                    ssrc: 0x1234_5678, payload: payload[...])
                sequenceNumber &+= 1
                guard let plain = try? packet.encoded(), let protected = try? sender?.protectRTP(plain),
                    let opened = try? receiver?.unprotectRTP(protected)
                else { continue }
                checksum &+= opened.count
            }
            return checksum
        }
    }
}
