import FuzzSupport
import PreflightCore

// ICE candidates from their SDP attribute text (signaling carries them from the peer). Property: a
// parsed candidate prints to text that parses to an equal candidate.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICECandidate(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, count), as: UTF8.self)
    guard let candidate = try? ICECandidate(sdpAttribute: text) else { return 0 }
    let printed = candidate.sdpAttribute
    let again: ICECandidate
    do { again = try ICECandidate(sdpAttribute: printed) } catch {
        preconditionFailure("printed candidate \"\(printed)\" does not parse: \(error)")
    }
    precondition(again == candidate, "printed candidate \"\(printed)\" parses differently")
    return 0
}

@_cdecl("FuzzICECandidate_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzICECandidate)
}
