import Foundation
import PreflightCore
import Testing

/// ``ReportUpload``: what the edge accepts of an uploaded report, and what it keeps.
@Suite struct ReportUploadValidationTests {
    static func upload(_ text: String, kind: ReportKind = .preflightTest) throws(PreflightError) -> ReportUpload {
        try ReportUpload(kind: kind, body: Array(text.utf8))
    }

    static func refusal(_ bytes: [UInt8], kind: ReportKind = .preflightTest) -> PreflightError? {
        do {
            _ = try ReportUpload(kind: kind, body: bytes)
            return nil
        } catch {
            return error
        }
    }

    /// The vendor's example report, uploaded as the SDK writes it, reads back as the same report.
    @Test func aRealReportIsStoredCanonicalAndReadsBackTheSame() throws {
        let fixture = try ReportModelTests.fixture()
        var report = try PreflightReport(jsonData: fixture)
        report.callSid = "CA0123456789abcdef0123456789abcdef"  // the vendor's example writes its sid with dots
        let upload = try ReportUpload(kind: .preflightTest, body: Array(try JSONEncoder().encode(report)))
        #expect(try PreflightReport(jsonData: Data(upload.body.utf8)) == report)
        // Canonical: keys sorted, so reading it again gives it back unchanged.
        #expect(try ReportUpload(kind: .preflightTest, body: Array(upload.body.utf8)).body == upload.body)
        #expect(upload.summary.mos == report.networkStats.mos.average)
    }

    enum Hostile: String, CaseIterable, CustomTestStringConvertible {
        case byteOrderMark, escapeInAString, bellOutsideAString, nul, oscSequence
        case trailingCommaInAnObject, trailingCommaInANestedArray, trailingCommaBeforeWhitespace
        var testDescription: String { rawValue }

        var bytes: [UInt8] {
            switch self {
            case .byteOrderMark: [0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8)
            case .escapeInAString: Array(#"{"a":"x"#.utf8) + [0x1B] + Array(#"[2J"}"#.utf8)
            case .bellOutsideAString: Array(#"{"a":1}"#.utf8) + [0x07]
            case .nul: Array(#"{"a":""#.utf8) + [0x00] + Array(#""}"#.utf8)
            case .oscSequence: Array(#"{"a":""#.utf8) + [0x1B, 0x5D, 0x35, 0x32, 0x3B, 0x63, 0x3B, 0x07] + Array(#""}"#.utf8)
            case .trailingCommaInAnObject: Array(#"{"a":1,}"#.utf8)
            case .trailingCommaInANestedArray: Array(#"{"a":[1,2,],"b":"]"}"#.utf8)
            case .trailingCommaBeforeWhitespace: Array("{\"a\":{\"b\":1,\r\n\t }}".utf8)
            }
        }
    }

    /// A byte order mark or a raw control byte is not JSON (RFC 8259 §7, §8.1): refused with 70702.
    @Test(arguments: Hostile.allCases)
    func hostileBytesAreRefused(_ hostile: Hostile) {
        let error = Self.refusal(hostile.bytes)
        #expect(error?.code == .reportRejected, "\(hostile): \(String(describing: error))")
    }

    /// Commas, brackets and escaped quotes inside strings are text, not JSON syntax.
    @Test func commasAndBracketsInStringsAreKept() throws {
        let upload = try Self.upload(#"{"a":",]","b":"\\","c":[1, 2],"d":"\",}"}"#)
        let decoded = try JSONSerialization.jsonObject(with: Data(upload.body.utf8)) as? [String: Any]
        #expect(decoded?["a"] as? String == ",]")
        #expect(decoded?["b"] as? String == "\\")
        #expect(decoded?["d"] as? String == "\",}")
        #expect(decoded?["c"] as? [Int] == [1, 2])
    }

    /// A control character the JSON escapes is kept, and kept escaped: what the edge serves back
    /// holds no raw control byte.
    @Test func escapedControlCharactersStayEscaped() throws {
        let upload = try Self.upload(#"{"title":"\u001b]0;pwned\u0007","b":2}"#)
        #expect(!upload.body.utf8.contains { $0 < 0x20 })
        #expect(upload.body.hasPrefix(#"{"b":2,"title":""#))
        let decoded = try JSONSerialization.jsonObject(with: Data(upload.body.utf8)) as? [String: Any]
        #expect(decoded?["title"] as? String == "\u{1B}]0;pwned\u{07}")
    }

    /// Foundation writes `-0.0` as `-0`, which reads back as the integer 0: the stored body writes
    /// it `0` so that reading it again gives it back (found by FuzzReportUpload).
    @Test func negativeZeroIsStoredAsZero() throws {
        let body = #"{"mos":4.2,"jitter":{"min":0,"max":-0.0},"rtt":[-0.0,{"avg":-0}],"x":-0.5}"#
        let upload = try Self.upload(body, kind: .preCallDiagnosis)
        #expect(upload.body == #"{"jitter":{"max":0,"min":0},"mos":4.2,"rtt":[0,{"avg":0}],"x":-0.5}"#)
        let again = try ReportUpload(kind: .preCallDiagnosis, body: Array(upload.body.utf8))
        #expect(again.body == upload.body)
        #expect(again.summary == upload.summary)
    }

    @Test(arguments: [
        (#"{"networkStats":{"mos":{"average":1.7e308}}}"#, "mos"),
        (#"{"networkStats":{"mos":{"average":-1}}}"#, "mos"),
        (#"{"networkStats":{"mos":{"average":5.5}}}"#, "mos"),
        (#"{"networkStats":{"rtt":{"average":-3}}}"#, "rtt"),
        (#"{"networkStats":{"rtt":{"average":1e12}}}"#, "rtt"),
        (#"{"networkStats":{"jitter":{"average":700000}}}"#, "jitter"),
        (#"{"networkTiming":{"iceConnection":{"duration":1e300}}}"#, "iceConnectionTime"),
    ])
    func measuredFieldsOutOfRangeAreRefused(_ body: String, _ field: String) {
        let error = Self.refusal(Array(body.utf8))
        #expect(error?.code == .reportRejected)
        #expect(error?.message.contains(field) == true, "\(String(describing: error))")
    }

    /// A diagnosis reports seconds: 0.2 s is 200 ms, within range; 1e9 s is not.
    @Test func aDiagnosisIsCheckedInMilliseconds() throws {
        #expect(try Self.upload(#"{"mos":4.1,"rtt":{"avg":0.2}}"#, kind: .preCallDiagnosis).summary.rtt == 200)
        #expect(Self.refusal(Array(#"{"mos":4.1,"rtt":{"avg":1e9}}"#.utf8), kind: .preCallDiagnosis)?.code == .reportRejected)
    }

    /// A test that measured nothing reports MOS 0: accepted, and within the index's range.
    @Test func noMeasurementIsNotOutOfRange() throws {
        let upload = try Self.upload(#"{"networkStats":{"mos":{"average":0},"rtt":{"average":0},"jitter":{"average":0}}}"#)
        #expect(upload.summary.mos == 0)
    }

    /// Text the index copies from a report is capped: a megabyte of `edge` stays in the body only.
    @Test func longIndexedTextStaysInTheBodyOnly() throws {
        let long = String(repeating: "e", count: 100_000)
        let upload = try Self.upload(#"{"edge":"\#(long)","selectedEdge":"ashburn"}"#)
        #expect(upload.summary.edge == nil)
        #expect(upload.summary.selectedEdge == "ashburn")
        #expect(upload.body.contains(long))
        let limit = String(repeating: "e", count: ReportSummary.maximumIndexedTextLength)
        #expect(try Self.upload(#"{"edge":"\#(limit)"}"#).summary.edge == limit)
    }
}
