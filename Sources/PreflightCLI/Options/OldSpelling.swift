import ArgumentParser

/// The old spellings of renamed options (`--app` for `--application`, `--edge` for `--edge-url`),
/// hidden from help and kept so that existing scripts keep working: a command's `validate()`
/// moves an old spelling's value to the option's one name, and refuses both together.
enum OldSpelling {
    /// `value`, or `oldValue` when only the old spelling was given.
    /// - Throws: `ValidationError` when both spellings were given.
    static func merge<Value>(_ oldValue: Value?, into value: Value?, oldName: String, newName: String) throws(ValidationError) -> Value? {
        guard let oldValue else { return value }
        guard value == nil else { throw ValidationError("\(oldName) is the old spelling of \(newName): give \(newName) only") }
        return oldValue
    }

    /// `values`, or `oldValues` when only the old spelling was given (repeatable options).
    /// - Throws: `ValidationError` when both spellings were given.
    static func merge<Value>(_ oldValues: [Value], into values: [Value], oldName: String, newName: String) throws(ValidationError) -> [Value] {
        guard !oldValues.isEmpty else { return values }
        guard values.isEmpty else { throw ValidationError("\(oldName) is the old spelling of \(newName): give \(newName) only") }
        return oldValues
    }
}
