import Foundation

/// The `--codec` option's list: names separated by commas, blanks dropped.
enum CodecList {
    /// `"opus, PCMU"` as `["opus", "PCMU"]`; an empty text is an empty list (the SDK's 70005).
    static func parse(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
