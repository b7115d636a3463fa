/// Password preparation for STUN keys: the part of SASLprep (RFC 4013) / OpaqueString (RFC 8265) that
/// real credentials need, without Foundation.
///
/// - ASCII text is returned unchanged (the common case; NFKC and the mappings leave ASCII alone).
/// - Characters of RFC 3454 table B.1 ("commonly mapped to nothing", e.g. U+00AD soft hyphen) are removed.
/// - Non-ASCII spaces (table C.1.2) become U+0020.
/// - A table of compatibility characters is folded as NFKC would: superscript/ordinal letters and digits,
///   Roman numerals U+2160–U+217F, fullwidth ASCII U+FF01–U+FF5E, Latin ligatures U+FB00–U+FB06.
///
/// Limitation: other characters are kept as given, with no NFC/NFKC normalization. Foundation's
/// `precomposedStringWithCompatibilityMapping` does NFKC on Linux too (checked with Swift 6.3.1: it folds
/// U+00AA and U+2168 but, being only NFKC, keeps U+00AD), but PreflightCore avoids full Foundation. The table
/// is enough for RFC 5769 §2.4, whose password "The\u{AD}M\u{AA}tr\u{2168}" becomes "TheMatrIX".
enum OpaqueString {
    static func prepare(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if isMappedToNothing(v) { continue }
            if isNonASCIISpace(v) {
                out.append(" ")
                continue
            }
            if let folded = compatibilityFold(v) {
                out.append(contentsOf: folded.unicodeScalars)
                continue
            }
            out.append(scalar)
        }
        return String(out)
    }

    /// RFC 3454 table B.1.
    static func isMappedToNothing(_ v: UInt32) -> Bool {
        switch v {
        case 0x00AD, 0x034F, 0x1806, 0x180B...0x180D, 0x200B...0x200D, 0x2060, 0xFE00...0xFE0F, 0xFEFF: true
        default: false
        }
    }

    /// RFC 3454 table C.1.2.
    static func isNonASCIISpace(_ v: UInt32) -> Bool {
        switch v {
        case 0x00A0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    static let romanNumerals = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "L", "C", "D", "M"]

    /// NFKC of a few compatibility characters; `nil` when the character is not in the table.
    static func compatibilityFold(_ v: UInt32) -> String? {
        switch v {
        case 0x00AA: return "a"
        case 0x00BA: return "o"
        case 0x00B2: return "2"
        case 0x00B3: return "3"
        case 0x00B9: return "1"
        case 0x2160...0x216F: return romanNumerals[Int(v - 0x2160)]
        case 0x2170...0x217F: return romanNumerals[Int(v - 0x2170)].lowercased()
        case 0xFF01...0xFF5E:
            return Unicode.Scalar(v - 0xFF01 + 0x21).map { String(Character($0)) }
        case 0xFB00: return "ff"
        case 0xFB01: return "fi"
        case 0xFB02: return "fl"
        case 0xFB03: return "ffi"
        case 0xFB04: return "ffl"
        case 0xFB05, 0xFB06: return "st"
        default: return nil
        }
    }
}
