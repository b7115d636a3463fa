import FuzzSupport
import PreflightCore

// Signaling text frames, as the edge and the client receive them over the WebSocket. Property: a
// decoded message re-encodes to text that decodes to an equal message; the edge's checks of a
// message's fields (`candidates`) never trap.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignalingJSON(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, count), as: UTF8.self)
    guard let message = try? SignalingMessage(jsonText: text) else { return 0 }
    let again: SignalingMessage
    do { again = try SignalingMessage(jsonText: message.jsonText()) } catch {
        preconditionFailure("re-encoded message does not decode: \(error)")
    }
    precondition(again == message, "re-encoded message decodes differently")
    if case .candidates(let body) = message { try? body.validate() }
    return 0
}

@_cdecl("FuzzSignalingJSON_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzSignalingJSON)
}
