import Foundation

/// A report a client uploads to its edge (`POST /v1/reports?kind=…`, docs/protocol.md): the
/// report's JSON, read strictly and stored canonical, and the fields the edge indexes, read from
/// it by its kind. Hostile input: the body must be a UTF-8 JSON object (RFC 8259) within
/// ``maximumLength``, with no byte order mark and no raw control character, and its measured
/// fields within their ranges (``ReportSummary/fieldOutOfRange``); a field of an unexpected type
/// is left out of the summary, not an error.
public struct ReportUpload: Sendable, Hashable {
    /// The largest report accepted: a 120 s preflight test with all its samples is about 60 KB.
    public static let maximumLength = 1 << 20
    /// The longest sid kept from a report; a longer one is refused.
    public static let maximumSidLength = 64

    /// What produced the report.
    public var kind: ReportKind
    /// The indexed fields.
    public var summary: ReportSummary
    /// The report's JSON, canonical: re-encoded from what was parsed, keys sorted, every control
    /// character escaped, so that what the edge serves back is valid JSON whatever was sent.
    public var body: String

    /// Reads an upload.
    /// - Throws: ``PreflightError`` `.reportRejected` for a body over the cap, with a byte order
    ///   mark or a raw control character, not UTF-8, not a JSON object, with a measured field out
    ///   of its range (MOS 0–5, 0 for none measured; RTT and jitter 0–600,000 ms, ICE connection
    ///   time 0–3,600,000 ms; finite numbers only), or a sid that is not 1–64 letters, digits, `-` or `_`.
    public init(kind: ReportKind, body bytes: some Collection<UInt8>) throws(PreflightError) {
        guard bytes.count <= Self.maximumLength else {
            throw PreflightError(code: .reportRejected, message: "report: \(bytes.count) bytes exceed \(Self.maximumLength)")
        }
        // RFC 8259 §8.1: a JSON text carries no byte order mark.
        guard !bytes.starts(with: [0xEF, 0xBB, 0xBF]) else {
            throw PreflightError(code: .reportRejected, message: "report: the body starts with a byte order mark")
        }
        if let problem = bytes.withContiguousStorageIfAvailable(Self.bytesNotJSON) ?? Self.bytesNotJSON(Array(bytes)) {
            throw PreflightError(code: .reportRejected, message: "report: \(problem)")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw PreflightError(code: .reportRejected, message: "report: the body is not UTF-8")
        }
        let canonical: Data
        do {
            // Any JSON object (the summary types read only what they know): parsing checks the
            // whole document's syntax, and the re-encoding is what the store keeps.
            guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                throw PreflightError(code: .reportRejected, message: "report: the body is not a JSON object")
            }
            canonical = try JSONSerialization.data(
                withJSONObject: Self.withoutNegativeZero(object), options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw PreflightError(code: .reportRejected, message: "report: the body is not a JSON object")
        }
        let decoder = JSONDecoder()
        var summary: ReportSummary
        switch kind {
        case .preflightTest: summary = (try? decoder.decode(PreflightTestShape.self, from: canonical))?.summary ?? ReportSummary()
        case .lastmileProbe: summary = (try? decoder.decode(ProbeShape.self, from: canonical))?.summary ?? ReportSummary()
        case .connectivityCheck: summary = (try? decoder.decode(CheckShape.self, from: canonical))?.summary ?? ReportSummary()
        case .preCallDiagnosis: summary = (try? decoder.decode(DiagnosisShape.self, from: canonical))?.summary ?? ReportSummary()
        }
        if let problem = summary.fieldOutOfRange {
            throw PreflightError(code: .reportRejected, message: "report: \(problem)")
        }
        // What the index keeps must fit every store's columns: text too long for an index column
        // and an error code outside the codes' range are kept in the body only.
        summary = summary.indexable
        if let sid = summary.sid, !Self.isValidSid(sid) {
            throw PreflightError(
                code: .reportRejected,
                message: "report: sid \(UntrustedText.quoted(sid)) must be 1–\(Self.maximumSidLength) letters, digits, - or _")
        }
        self.kind = kind
        self.summary = summary
        self.body = String(decoding: canonical, as: UTF8.self)
    }

    /// `value` with every `-0.0` written as `0`: Foundation writes negative zero as `-0`, which
    /// reads back as the integer 0, so a body holding it would not be canonical (its second
    /// reading would differ from its first). Both are zero to every reader of the report.
    static func withoutNegativeZero(_ value: Any) -> Any {
        switch value {
        case let object as [String: Any]: object.mapValues(withoutNegativeZero)
        case let array as [Any]: array.map(withoutNegativeZero)
        case let number as Double where number == 0 && number.sign == .minus: 0
        default: value
        }
    }

    /// What in `bytes` Foundation's parser would take but RFC 8259 does not, `nil` for nothing:
    /// - §7: a control character is escaped in a string, and only tab, line feed and carriage
    ///   return are whitespace outside one; anything else of U+0000–U+001F is not JSON;
    /// - §4–5: a value follows every comma, and Foundation lets `[1,]` and `{"a":1,}` through.
    static func bytesNotJSON(_ bytes: some RandomAccessCollection<UInt8>) -> String? {
        if let (offset, byte) = firstControlByte(in: bytes) {
            return "a raw control character (0x\(String(byte, radix: 16))) at byte \(offset)"
        }
        if let offset = firstTrailingComma(in: bytes) { return "a comma with no value after it at byte \(offset)" }
        return nil
    }

    /// The first byte of U+0000–U+001F other than tab, line feed and carriage return, and where.
    static func firstControlByte(in bytes: some RandomAccessCollection<UInt8>) -> (offset: Int, byte: UInt8)? {
        var offset = 0
        for byte in bytes {
            if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { return (offset, byte) }
            offset += 1
        }
        return nil
    }

    /// The offset of the first comma outside a string followed (after whitespace) by `]` or `}`.
    static func firstTrailingComma(in bytes: some RandomAccessCollection<UInt8>) -> Int? {
        var inString = false
        var escaped = false
        var comma: Int?
        var offset = 0
        for byte in bytes {
            defer { offset += 1 }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case 0x5D, 0x7D: if let comma { return comma }
            case 0x2C: comma = offset; continue
            case 0x22: inString = true
            default: break
            }
            comma = nil
        }
        return nil
    }

    /// Whether `sid` is 1–64 ASCII letters, digits, `-` or `_` (safe in a URL path and in HTML).
    public static func isValidSid(_ sid: String) -> Bool {
        let bytes = Array(sid.utf8)
        return (1...maximumSidLength).contains(bytes.count)
            && bytes.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }
}

/// A field read leniently: a value of another type reads as `nil` instead of failing the report.
private struct Lenient<Value: Decodable & Sendable>: Decodable {
    var value: Value?
    init(from decoder: any Decoder) throws {
        value = try? decoder.singleValueContainer().decode(Value.self)
    }
}

private struct Average: Decodable { var average: Lenient<Double>? }
private struct ErrorShape: Decodable { var code: Lenient<Int>? }
private struct CandidateShape: Decodable { var candidateType: Lenient<String>? }
private struct PairShape: Decodable { var localCandidate: CandidateShape? }

private struct PreflightTestShape: Decodable {
    struct NetworkStats: Decodable { var mos: Average?; var rtt: Average?; var jitter: Average? }
    struct Timing: Decodable { var duration: Lenient<Double>? }
    struct NetworkTiming: Decodable { var iceConnection: Timing? }
    var callSid: Lenient<String>?
    var edge: Lenient<String>?
    var selectedEdge: Lenient<String>?
    var callQuality: Lenient<Int>?
    var isTurnRequired: Lenient<String>?
    var isTurnRequiredBool: Lenient<Bool>?
    var networkStats: NetworkStats?
    var networkTiming: NetworkTiming?
    var error: ErrorShape?

    enum CodingKeys: String, CodingKey {
        case callSid, edge, selectedEdge, callQuality, isTurnRequired, networkStats, networkTiming, error
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        callSid = try? container.decodeIfPresent(Lenient<String>.self, forKey: .callSid)
        edge = try? container.decodeIfPresent(Lenient<String>.self, forKey: .edge)
        selectedEdge = try? container.decodeIfPresent(Lenient<String>.self, forKey: .selectedEdge)
        callQuality = try? container.decodeIfPresent(Lenient<Int>.self, forKey: .callQuality)
        // The reference report writes it as a string; a boolean reads too.
        isTurnRequired = try? container.decodeIfPresent(Lenient<String>.self, forKey: .isTurnRequired)
        isTurnRequiredBool = try? container.decodeIfPresent(Lenient<Bool>.self, forKey: .isTurnRequired)
        networkStats = try? container.decodeIfPresent(NetworkStats.self, forKey: .networkStats)
        networkTiming = try? container.decodeIfPresent(NetworkTiming.self, forKey: .networkTiming)
        error = try? container.decodeIfPresent(ErrorShape.self, forKey: .error)
    }

    var summary: ReportSummary {
        let turn: Bool? =
            switch isTurnRequired?.value {
            case "true": true
            case "false": false
            default: isTurnRequiredBool?.value
            }
        return ReportSummary(
            sid: callSid?.value, edge: edge?.value, selectedEdge: selectedEdge?.value,
            callQuality: callQuality?.value.flatMap { (0...4).contains($0) ? $0 : nil }, isTurnRequired: turn,
            mos: networkStats?.mos?.average?.value, rtt: networkStats?.rtt?.average?.value,
            jitter: networkStats?.jitter?.average?.value, errorCode: error?.code?.value,
            iceConnectionTime: networkTiming?.iceConnection?.duration?.value)
    }
}

private struct ProbeShape: Decodable {
    var edge: Lenient<String>?
    var rtt: Lenient<Double>?
    var error: ErrorShape?

    var summary: ReportSummary {
        ReportSummary(edge: edge?.value, selectedEdge: edge?.value, rtt: rtt?.value, errorCode: error?.code?.value)
    }
}

private struct CheckShape: Decodable {
    struct MediaServerReport: Decodable { var publishICECandidatePairSelected: PairShape? }
    var edge: Lenient<String>?
    var mediaServerReport: MediaServerReport?
    var errors: [ErrorShape]?

    var summary: ReportSummary {
        let type = mediaServerReport?.publishICECandidatePairSelected?.localCandidate?.candidateType?.value
        return ReportSummary(
            edge: edge?.value, selectedEdge: edge?.value, isTurnRequired: type.map { $0 == "relay" },
            errorCode: errors?.first?.code?.value)
    }
}

private struct DiagnosisShape: Decodable {
    struct Summary: Decodable { var avg: Lenient<Double>? }
    var mos: Lenient<Double>?
    var rtt: Summary?
    var jitter: Summary?

    var summary: ReportSummary {
        // Telnyx reports RTT and jitter in seconds; the index keeps milliseconds.
        ReportSummary(mos: mos?.value, rtt: rtt?.avg?.value.map { $0 * 1000 }, jitter: jitter?.avg?.value.map { $0 * 1000 })
    }
}
