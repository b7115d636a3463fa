import Foundation

/// Text made safe for HTML: everything from a report is hostile (a candidate's address, an error
/// message, an identity), so every value goes through here before it reaches a page.
enum HTMLText {
    /// `text` with `& < > " '` escaped, control characters dropped, at most `limit` characters.
    static func escape(_ text: some StringProtocol, limit: Int = 2000) -> String {
        var out = ""
        out.reserveCapacity(min(text.utf8.count, limit) + 16)
        for (index, scalar) in text.unicodeScalars.enumerated() {
            guard index < limit else {
                out += "…"
                break
            }
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
                    || (0x2066...0x2069).contains(scalar.value)
                {
                    continue
                }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A number with `digits` decimals, `–` for NaN or infinity.
    static func number(_ value: Double, _ digits: Int = 1) -> String {
        value.isFinite ? String(format: "%.\(max(0, min(digits, 6)))f", value) : "–"
    }
}
