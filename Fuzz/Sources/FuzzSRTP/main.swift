import FuzzSupport
import PreflightCore

// SRTP and SRTCP with fixed keys, each input through both profiles: AEAD_AES_128_GCM with RFC
// 7714 §16's session key and salt (so that the RFC's vectors in the seed corpus authenticate),
// and AES_CM_128_HMAC_SHA1_80 (RFC 3711, what browsers negotiate). Properties: unprotecting hostile bytes only
// throws; a packet that parses as RTP (or starts like RTCP) protects and unprotects back to
// itself and is refused as a replay the second time; and a sender and a receiver fed the same
// sequence numbers (two input bytes each) agree: every packet the sender protects, the receiver
// accepts, across sequence wraps, reordering and repeats.

let fixedKeys: SRTPSessionKeys? = try? SRTPSessionKeys(
    rtpKey: Array(0...15), rtpSalt: [0x51, 0x75, 0x69, 0x64, 0x20, 0x70, 0x72, 0x6F, 0x20, 0x71, 0x75, 0x6F],
    rtcpKey: Array(0...15), rtcpSalt: [0x51, 0x75, 0x69, 0x64, 0x20, 0x70, 0x72, 0x6F, 0x20, 0x71, 0x75, 0x6F])

let counterModeKeys: SRTPSessionKeys? = try? SRTPSessionKeys(
    rtpKey: Array(0...15), rtpSalt: Array(16...29), rtcpKey: Array(30...45), rtcpSalt: Array(46...59),
    profile: .aesCM128HMACSHA1_80, rtpAuthenticationKey: Array(60...79), rtcpAuthenticationKey: Array(80...99))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSRTP(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    guard let keys = fixedKeys, let counterMode = counterModeKeys else { preconditionFailure("the fixed session keys are refused") }
    exercise(input, keys: keys)
    exercise(input, keys: counterMode)
    return 0
}

func exercise(_ input: [UInt8], keys: SRTPSessionKeys) {
    var receiver = SRTPContext(sessionKeys: keys)
    _ = try? receiver.unprotectRTP(input)
    _ = try? receiver.unprotectRTCP(input)
    // In the caller's memory (the edge's bridge), into and within buffers of any size the input
    // picks: too small is refused, nothing is written past them (AddressSanitizer watches).
    if let first = input.first {
        var inPlace = SRTPContext(sessionKeys: keys)
        var output = [UInt8](repeating: 0, count: Int(first))
        _ = input.withUnsafeBytes { packet in output.withUnsafeMutableBytes { try? inPlace.unprotectRTP(packet, into: $0) } }
        var room = input + [UInt8](repeating: 0, count: Int(first) % (SRTPContext.rtpOverhead + 1))
        _ = room.withUnsafeMutableBytes { try? inPlace.protectRTP(inPlace: $0, length: input.count) }
    }

    if (try? RTPPacket(decoding: input)) != nil {
        var sender = SRTPContext(sessionKeys: keys)
        var fresh = SRTPContext(sessionKeys: keys)
        let protected: [UInt8]
        do { protected = try sender.protectRTP(input) } catch { preconditionFailure("valid RTP does not protect: \(error)") }
        precondition(protected.count == input.count + keys.profile.rtpOverhead, "SRTP overhead is not the profile's")
        do {
            let opened = try fresh.unprotectRTP(protected)
            precondition(opened == input, "SRTP round trip changed the packet")
        } catch { preconditionFailure("a packet we protected does not unprotect: \(error)") }
        do {
            _ = try fresh.unprotectRTP(protected)
            preconditionFailure("an SRTP replay was accepted")
        } catch { precondition(error.code == .srtpReplayed, "a replay failed with \(error.code), not 70007") }
    }
    if input.count >= 8, input[0] >> 6 == 2 {
        var sender = SRTPContext(sessionKeys: keys)
        var fresh = SRTPContext(sessionKeys: keys)
        let protected: [UInt8]
        do { protected = try sender.protectRTCP(input) } catch { preconditionFailure("RTCP does not protect: \(error)") }
        precondition(protected.count == input.count + keys.profile.rtcpOverhead, "SRTCP overhead is not the profile's")
        do {
            let opened = try fresh.unprotectRTCP(protected)
            precondition(opened == input, "SRTCP round trip changed the packet")
        } catch { preconditionFailure("a packet we protected does not unprotect: \(error)") }
    }

    // Sequence numbers from the input: both ends see the same packets in the same order.
    var sender = SRTPContext(sessionKeys: keys)
    var peer = SRTPContext(sessionKeys: keys)
    var index = 0
    while index + 1 < input.count, index < 256 {
        let sequenceNumber = UInt16(input[index]) << 8 | UInt16(input[index + 1])
        index += 2
        let plain = [0x80, 0x00, UInt8(truncatingIfNeeded: sequenceNumber >> 8), UInt8(truncatingIfNeeded: sequenceNumber),
                     0, 0, 0, 0, 0xCA, 0xFE, 0xBA, 0xBE, UInt8(truncatingIfNeeded: index)]
        guard let protected = try? sender.protectRTP(plain) else { continue }
        do {
            let opened = try peer.unprotectRTP(protected)
            precondition(opened == plain, "the receiver decrypted something else")
        } catch { preconditionFailure("sequence \(sequenceNumber): the receiver refused what the sender protected: \(error)") }
    }
}

@_cdecl("FuzzSRTP_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzSRTP)
}
