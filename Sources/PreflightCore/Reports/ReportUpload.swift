import Foundation

/// A report a client uploads to its edge (`POST /v1/reports?kind=…`, docs/protocol.md): the
/// report's JSON as the SDK made it, stored byte for byte, and the fields the edge indexes, read
/// from it by its kind. Hostile input: the body must be a UTF-8 JSON object within
/// ``maximumLength``; a field of an unexpected type is left out of the summary, not an error.
public struct ReportUpload: Sendable, Hashable {
    /// The largest report accepted: a 120 s preflight test with all its samples is about 60 KB.
    public static let maximumLength = 1 << 20
    /// The longest sid kept from a report; a longer one is refused.
    public static let maximumSidLength = 64

    /// What produced the report.
    public var kind: ReportKind
    /// The indexed fields.
    public var summary: ReportSummary
    /// The report's JSON, as received.
    public var body: String

    /// Reads an upload.
    /// - Throws: ``PreflightError`` `.reportRejected` for a body over the cap, not UTF-8, not a
    ///   JSON object, or a sid that is not 1–64 letters, digits, `-` or `_`.
    public init(kind: ReportKind, body bytes: some Collection<UInt8>) throws(PreflightError) {
        guard bytes.count <= Self.maximumLength else {
            throw PreflightError(code: .reportRejected, message: "report: \(bytes.count) bytes exceed \(Self.maximumLength)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw PreflightError(code: .reportRejected, message: "report: the body is not UTF-8")
        }
        let data = Data(bytes)
        let decoder = JSONDecoder()
        do {
            // Any JSON object (the summary types read only what they know): decoding checks
            // the whole document's syntax.
            _ = try decoder.decode(AnyObjectShape.self, from: data)
        } catch {
            throw PreflightError(code: .reportRejected, message: "report: the body is not a JSON object")
        }
        var summary: ReportSummary
        switch kind {
        case .preflightTest: summary = (try? decoder.decode(PreflightTestShape.self, from: data))?.summary ?? ReportSummary()
        case .lastmileProbe: summary = (try? decoder.decode(ProbeShape.self, from: data))?.summary ?? ReportSummary()
        case .connectivityCheck: summary = (try? decoder.decode(CheckShape.self, from: data))?.summary ?? ReportSummary()
        case .preCallDiagnosis: summary = (try? decoder.decode(DiagnosisShape.self, from: data))?.summary ?? ReportSummary()
        }
        // What the index keeps must fit every store's columns (PostgreSQL's INTEGER): an error code
        // outside the codes' range is kept in the body only.
        if let code = summary.errorCode, !(0...999_999).contains(code) { summary.errorCode = nil }
        if let sid = summary.sid, !Self.isValidSid(sid) {
            throw PreflightError(
                code: .reportRejected,
                message: "report: sid \(UntrustedText.quoted(sid)) must be 1–\(Self.maximumSidLength) letters, digits, - or _")
        }
        self.kind = kind
        self.summary = summary
        self.body = text
    }

    /// Whether `sid` is 1–64 ASCII letters, digits, `-` or `_` (safe in a URL path and in HTML).
    public static func isValidSid(_ sid: String) -> Bool {
        let bytes = Array(sid.utf8)
        return (1...maximumSidLength).contains(bytes.count)
            && bytes.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }
}

/// Any JSON object, read for its syntax only.
private struct AnyObjectShape: Decodable {
    init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: AnyKey.self)
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
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
