import Foundation
import FuzzSupport
import PreflightCore

// Report JSON, as `preflight` reads a saved report back. Property: once decoded and re-encoded, a
// report is a fixed point: encoding it, decoding that and encoding again gives the same bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReportJSON(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let json = Data(fuzzInput(data, count))
    guard let report = try? PreflightReport(jsonData: json) else { return 0 }
    let first: Data
    do { first = try report.jsonData() } catch { return 0 }
    let again: PreflightReport
    do { again = try PreflightReport(jsonData: first) } catch {
        preconditionFailure("re-encoded report does not decode: \(error)")
    }
    let second: Data
    do { second = try again.jsonData() } catch { preconditionFailure("a re-decoded report does not encode: \(error)") }
    precondition(first == second, "report JSON is not a fixed point after one round trip")
    return 0
}

@_cdecl("FuzzReportJSON_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzReportJSON)
}
