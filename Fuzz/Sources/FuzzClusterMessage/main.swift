import FuzzSupport
import PreflightEdge

// What one edge reads from another through the shared database's notifications (the bus of
// calls across edges), as text. Properties: never a crash; a message that parses passed its
// checks (an invite's or accept's trunk address among them: an IP address and a port, never a
// name to look up) and re-encodes to text that parses to an equal message.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClusterMessage(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, count), as: UTF8.self)
    guard let message = try? ClusterMessage(jsonText: text) else { return 0 }
    let again: ClusterMessage
    do { again = try ClusterMessage(jsonText: message.jsonText()) } catch {
        preconditionFailure("re-encoded message does not parse: \(error)")
    }
    precondition(again == message, "re-encoded message parses differently")
    return 0
}

@_cdecl("FuzzClusterMessage_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzClusterMessage)
}
