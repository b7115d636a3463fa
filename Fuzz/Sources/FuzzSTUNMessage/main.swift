import FuzzSupport
import PreflightCore

// The owning STUN decoder: decode, read every attribute through the typed accessors, verify with a
// fixed key, and re-encode. Properties checked: a decoded message re-encodes to bytes that decode to
// an equal message, and a message encoded with a key and FINGERPRINT passes its own checks.

let key = STUNIntegrityKey(Array("fuzz-password-0123456789".utf8))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSTUNMessage(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    let looksLikeSTUN = STUNMessage.looksLikeSTUN(input[...])
    guard let message = try? STUNMessage(decoding: input) else { return 0 }
    precondition(looksLikeSTUN, "decoded a message that looksLikeSTUN refuses")
    var touched = 0
    for attribute in message.attributes { touched &+= Int(attribute.type.rawValue) }
    for index in message.attributes.indices { _ = message.isIgnoredAttribute(at: index) }
    touched &+= message.ignoredAttributes.count + message.unknownComprehensionRequiredAttributes.count
    touched &+= (message.username?.count ?? 0) + (message.realm?.count ?? 0) + (message.nonce?.count ?? 0)
    touched &+= (message.software?.count ?? 0) + (message.errorCode?.reason.count ?? 0)
    touched &+= (message.reflexiveAddress?.port).map(Int.init) ?? 0
    touched &+= (message.xorRelayedAddress?.port).map(Int.init) ?? 0
    touched &+= (message.xorPeerAddress?.port).map(Int.init) ?? 0
    touched &+= Int(message.priority ?? 0) &+ Int(truncatingIfNeeded: message.iceControlling ?? 0)
    touched &+= Int(truncatingIfNeeded: message.iceControlled ?? 0) &+ (message.useCandidate ? 1 : 0)
    touched &+= Int(message.lifetime ?? 0) &+ (message.data?.count ?? 0) &+ Int(message.channelNumber ?? 0)
    touched &+= Int(message.fingerprint ?? 0)
    _ = try? message.verifyIntegrity(key: key)
    _ = try? message.verifyFingerprint()

    // Without a key every attribute is written as it is: the bytes must decode to the same message.
    if let again = try? message.encoded() {
        let redecoded: STUNMessage
        do { redecoded = try STUNMessage(decoding: again) } catch {
            preconditionFailure("re-encoded message does not decode: \(error)")
        }
        precondition(redecoded == message, "re-encoded message decodes differently")
    }
    // Protected and fingerprinted by us: the checks must pass on our own bytes.
    if let protected = try? message.encoded(integrityKey: key, fingerprint: true) {
        do {
            let decoded = try STUNMessage(decoding: protected)
            try decoded.verifyIntegrity(key: key)
            try decoded.verifyFingerprint()
        } catch {
            preconditionFailure("a message we protected fails its own checks: \(error)")
        }
    }
    return touched == 0 ? 0 : 0
}

@_cdecl("FuzzSTUNMessage_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzSTUNMessage)
}
