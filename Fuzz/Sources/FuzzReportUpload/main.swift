import Foundation
import FuzzSupport
import PreflightCore

// A report upload (`POST /v1/reports`), as the edge reads it: the first byte picks the kind, the
// rest is the body. Properties: never a crash; an accepted body is stored unchanged, its sid (when
// it has one) is a safe sid, and reading the same bytes again gives the same summary.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReportUpload(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(data, count)
    guard let first = bytes.first else { return 0 }
    let kinds = ReportKind.allCases
    let kind = kinds[Int(first) % kinds.count]
    let body = bytes.dropFirst()
    guard let upload = try? ReportUpload(kind: kind, body: body) else { return 0 }
    precondition(Array(upload.body.utf8) == Array(body), "an accepted body was changed")
    if let sid = upload.summary.sid { precondition(ReportUpload.isValidSid(sid), "an unsafe sid was accepted") }
    precondition((try? ReportUpload(kind: kind, body: body))?.summary == upload.summary, "the summary is not deterministic")
    return 0
}

@_cdecl("FuzzReportUpload_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzReportUpload)
}
