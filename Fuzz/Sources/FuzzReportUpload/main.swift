import Foundation
import FuzzSupport
import PreflightCore

// A report upload (`POST /v1/reports`), as the edge reads it: the first byte picks the kind, the
// rest is the body. Properties: never a crash; what an accepted body is stored as is canonical
// (reading it again gives it back unchanged, with the same summary), holds no raw control byte
// and no byte order mark; its sid (when it has one) is a safe sid; its measured fields are within
// their ranges; and reading the same bytes again gives the same summary.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReportUpload(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(data, count)
    guard let first = bytes.first else { return 0 }
    let kinds = ReportKind.allCases
    let kind = kinds[Int(first) % kinds.count]
    let body = bytes.dropFirst()
    guard let upload = try? ReportUpload(kind: kind, body: body) else { return 0 }
    let stored = Array(upload.body.utf8)
    precondition(!stored.contains { $0 < 0x20 }, "a stored body holds a raw control byte")
    precondition(!stored.starts(with: [0xEF, 0xBB, 0xBF]), "a stored body starts with a byte order mark")
    let again = try? ReportUpload(kind: kind, body: stored)
    precondition(again?.body == upload.body, "the canonical body is not canonical")
    precondition(again?.summary == upload.summary, "the canonical body reads as another summary")
    precondition(upload.summary.fieldOutOfRange == nil, "a measured field out of its range was accepted")
    if let sid = upload.summary.sid { precondition(ReportUpload.isValidSid(sid), "an unsafe sid was accepted") }
    precondition((try? ReportUpload(kind: kind, body: body))?.summary == upload.summary, "the summary is not deterministic")
    return 0
}

@_cdecl("FuzzReportUpload_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzReportUpload)
}
