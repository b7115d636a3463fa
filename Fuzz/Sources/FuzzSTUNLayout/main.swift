import FuzzSupport
import PreflightCore

// The receive hot path's STUN decoder, in place: parse, check integrity and fingerprint with a
// fixed key, and read attributes the way the ICE agent and the edge do. The fuzzer cannot forge a
// MAC, but the HMAC and CRC paths still run over every layout the parser accepts, so any offset
// they compute wrongly shows up as an out-of-bounds read under AddressSanitizer.

/// One key for every input (any fixed key does: only the code paths matter, not a match).
let key = STUNIntegrityKey(Array("fuzz-password-0123456789".utf8))

/// The attributes the agent, the TURN client and the edge read with `value(of:in:)`.
let readTypes: [STUNAttributeType] = [
    .username, .priority, .useCandidate, .iceControlling, .iceControlled, .xorMappedAddress, .errorCode,
    .messageIntegrity, .messageIntegritySHA256, .fingerprint, .nonce, .realm, .data, .lifetime,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSTUNLayout(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(data, count)
    guard let layout = try? STUNMessageLayout(parsing: bytes) else { return 0 }
    precondition(layout.length == count, "layout length \(layout.length) differs from the input's \(count)")
    _ = try? layout.verifyIntegrity(key: key, in: bytes)
    _ = try? layout.verifyFingerprint(in: bytes)
    var seen = 0
    layout.forEachAttribute(in: bytes) { _, value in
        precondition(value.lowerBound >= STUNMessageLayout.headerLength && value.upperBound <= count, "attribute \(value) outside the message")
        seen += 1
    }
    precondition(seen == layout.attributeCount, "walked \(seen) attributes, parser counted \(layout.attributeCount)")
    var checksum: UInt8 = 0
    for type in readTypes {
        guard let range = layout.value(of: type, in: bytes) else { continue }
        precondition(range.lowerBound >= STUNMessageLayout.headerLength && range.upperBound <= count, "value \(range) outside the message")
        // Touch every byte, as a caller copying the value would.
        for index in range { checksum ^= bytes[index] }
    }
    _ = layout.value(of: .username, in: bytes, equals: Array("fuzz:user".utf8))
    return checksum == 0 ? 0 : 0
}

@_cdecl("FuzzSTUNLayout_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzSTUNLayout)
}
