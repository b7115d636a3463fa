import PreflightCore
import Testing

/// Bytes from hex text; spaces and newlines are ignored.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.unicodeScalars.filter { !$0.properties.isWhitespace }.map { Character($0) }
    if digits.count % 2 != 0 { Issue.record("odd number of hex digits in \(text)") }
    var bytes = [UInt8]()
    var i = 0
    while i + 1 < digits.count {
        if let byte = UInt8(String(digits[i...i + 1]), radix: 16) {
            bytes.append(byte)
        } else {
            Issue.record("invalid hex \(String(digits[i...i + 1])) in \(text)")
        }
        i += 2
    }
    return bytes
}

/// Runs `body` and records whether it threw a PreflightError with `code`.
func expectError(
    _ code: PreflightError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(PreflightError) -> Void
) {
    do {
        try body()
        Issue.record("expected error \(code), nothing thrown. \(comment?.rawValue ?? "")", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error.message) \(comment?.rawValue ?? "")", sourceLocation: sourceLocation)
    }
}

/// Whether `body` throws any PreflightError.
func throwsError(_ body: () throws(PreflightError) -> Void) -> Bool {
    do {
        try body()
        return false
    } catch {
        return true
    }
}

/// SplitMix64: a small seeded generator so property tests can build structured random values from one seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The transaction ID of the RFC 5769 §2.1–2.3 vectors.
let rfc5769TransactionID = STUNTransactionID(high: 0xB7E7_A701, low: 0xBC34_D686_FA87_DFAE)
