import FuzzSupport
import PreflightCore

// RTCP compound datagrams, lenient and strict (RFC 3550 A.2). Properties: whatever the strict
// decoder accepts the lenient one accepts too, and a decoded compound packet re-encodes to bytes
// that decode to an equal one.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTCP(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    let strict = try? RTCPCompoundPacket(decoding: input, strict: true)
    guard let compound = try? RTCPCompoundPacket(decoding: input) else {
        precondition(strict == nil, "the strict decoder accepts what the lenient one refuses")
        return 0
    }
    if let strict { precondition(strict == compound, "strict and lenient decodings differ") }
    // Each packet alone, as a receiver that splits the datagram itself would decode it.
    for packet in compound.packets {
        guard let bytes = try? packet.encoded() else { continue }
        precondition((try? RTCPPacket(decoding: bytes)) == packet, "a packet re-encoded alone decodes differently")
    }
    let encoded: [UInt8]
    do { encoded = try compound.encoded() } catch { return 0 }
    let again: RTCPCompoundPacket
    do { again = try RTCPCompoundPacket(decoding: encoded) } catch {
        preconditionFailure("re-encoded compound packet does not decode: \(error)")
    }
    precondition(again == compound, "re-encoded compound packet decodes differently")
    return 0
}

@_cdecl("FuzzRTCP_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzRTCP)
}
