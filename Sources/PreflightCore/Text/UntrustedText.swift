/// Text that came from the network or a user, made safe to put in an error message or a log line:
/// cut to a bounded length and with control characters escaped, so that an attacker can neither
/// fill the logs (one 59 KB issuer claim became one 59 KB log line) nor forge log lines.
public enum UntrustedText {
    /// The longest excerpt kept, in Unicode scalars; 64 by default.
    public static let defaultLimit = 64

    /// `text` with control and bidirectional-formatting characters escaped (as Swift escapes;
    /// with `escapingQuotes`, double quotes and backslashes too) and cut to `limit` Unicode
    /// scalars (not characters: one character may carry any number of combining marks), with
    /// the number of bytes left out named when it was cut.
    public static func excerpt(_ text: some StringProtocol, limit: Int = defaultLimit, escapingQuotes: Bool = false) -> String {
        var out = ""
        var kept = 0
        var keptBytes = 0
        for scalar in text.unicodeScalars {
            guard kept < max(0, limit) else { break }
            switch scalar {
            case "\"" where escapingQuotes: out += "\\\""
            case "\\" where escapingQuotes: out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                let value = scalar.value
                if value < 0x20 || (0x7F...0x9F).contains(value) || (0x2028...0x2029).contains(value)
                    || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
                {
                    out += "\\u{" + String(value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            kept += 1
            keptBytes += scalar.utf8.count
        }
        let left = text.utf8.count - keptBytes
        if left > 0 { out += "…(+\(left) bytes)" }
        return out
    }

    /// ``excerpt(_:limit:escapingQuotes:)`` in double quotes, with quotes and backslashes escaped.
    public static func quoted(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        "\"" + excerpt(text, limit: limit, escapingQuotes: true) + "\""
    }

    /// `text` whole, for a terminal: every control character but the line feed (C0, DEL, C1: ESC,
    /// BEL, CSI and OSC among them, so no title change, clipboard write or screen clear) and every
    /// bidirectional-formatting character written as `\u{…}`. What the edge serves is JSON, where a
    /// raw control character never belongs; this guards a terminal against whatever comes back.
    public static func forTerminal(_ text: some StringProtocol) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if (value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(value) || (0x2028...0x2029).contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || (0x200E...0x200F).contains(value)
                || value == 0x061C
            {
                out += "\\u{" + String(value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
