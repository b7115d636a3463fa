import Foundation
import FuzzSupport
import PreflightCore

// The connectivity check's inputs from the network: the init endpoint's answer (status from the
// first two bytes, the body after them), a video test payload's header (the subscribe
// connection's packets), and a result's JSON (what `preflight check --json` wrote, read back).
// Properties: an answer either decodes within its limits or throws 70601 / a token code; a parsed
// video header re-encodes to the same 8 bytes with index < count; a decoded result re-encodes and
// decodes to an equal value.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConnectivityCheck(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    if input.count >= 2 {
        let status = UInt(input[0]) << 8 | UInt(input[1])
        do {
            let answer = try InitAnswer(status: status, body: Array(input.dropFirst(2)))
            precondition(status == 200 && answer.websocketUrl.utf8.count <= 2048 && answer.edge.utf8.count <= 256, "answer out of bounds")
        } catch {
            precondition(error.code == .initFailed || (20000...79999).contains(error.code.rawValue), "code \(error.code)")
        }
    }
    input.withUnsafeBytes { bytes in
        guard let payload = try? VideoTestPayload(parsing: bytes) else { return }
        precondition(payload.index < payload.count, "index \(payload.index) of \(payload.count)")
        precondition(payload.header == Array(input.prefix(VideoTestPayload.headerSize)), "the header does not re-encode")
    }
    if let result = try? JSONDecoder().decode(ConnectivityCheckResult.self, from: Data(input)) {
        guard let data = try? result.jsonData(prettyPrinted: false), let again = try? JSONDecoder().decode(ConnectivityCheckResult.self, from: data)
        else { preconditionFailure("a decoded result does not round-trip") }
        precondition(again.state == result.state && again.errors == result.errors, "the round trip changed the result")
    }
    return 0
}

@_cdecl("FuzzConnectivityCheck_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzConnectivityCheck)
}
