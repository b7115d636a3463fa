/// Interfaces whose ``NetworkType`` is given rather than read from the system: how a lab marks
/// veth interfaces (which Linux calls Ethernet) as Wi-Fi or cellular, and how a user corrects a
/// classification.
///
/// Written `name=type[,name=type…]`, e.g. `veth-wifi=wifi,veth-lte=cellular`; a name ending in
/// `*` matches every interface that starts with the rest (`lte*=cellular`). Types are those
/// ``NetworkType/init(name:)`` reads. The same text goes in the environment variable
/// ``environmentVariable`` and in the command line's `--network-type` option.
public struct NetworkTypeOverrides: Sendable, Hashable {
    /// `PREFLIGHT_NETWORK_TYPES`.
    public static let environmentVariable = "PREFLIGHT_NETWORK_TYPES"
    /// At most this many entries.
    public static let maximumEntries = 64
    /// A name is at most this many bytes (Linux's `IFNAMSIZ` − 1), not counting a final `*`.
    public static let maximumNameLength = 15

    /// The entries in the order written; the first that matches wins.
    public private(set) var entries: [(pattern: String, type: NetworkType)] = []

    /// No overrides.
    public init() {}

    /// Reads overrides from their text; empty text gives none.
    /// - Throws: ``PreflightError`` `.invalidArgument` naming the entry: no `=`, an empty or
    ///   too long name, a name with characters other than letters, digits, `-`, `_`, `.`, `@`, a
    ///   `*` anywhere but at the end, an unknown type, or more than ``maximumEntries`` entries.
    public init(parsing text: String) throws(PreflightError) {
        for item in text.split(separator: ",", omittingEmptySubsequences: true) {
            let entry = item.trimmingSpaces
            guard entries.count < Self.maximumEntries else {
                throw PreflightError(code: .invalidArgument, message: "network types: more than \(Self.maximumEntries) entries")
            }
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw PreflightError(code: .invalidArgument, message: "network types: '\(entry.prefix(40))' is not name=type")
            }
            let pattern = String(parts[0])
            let name = pattern.hasSuffix("*") ? String(pattern.dropLast()) : pattern
            guard !name.isEmpty, name.utf8.count <= Self.maximumNameLength,
                name.utf8.allSatisfy({ Self.nameBytes.contains($0) })
            else {
                throw PreflightError(
                    code: .invalidArgument,
                    message: "network types: '\(pattern.prefix(40))' is not an interface name (1–\(Self.maximumNameLength) letters, digits, - _ . @, perhaps a final *)")
            }
            guard let type = NetworkType(name: String(parts[1])) else {
                throw PreflightError(
                    code: .invalidArgument,
                    message: "network types: '\(parts[1].prefix(40))' is not a network type (ethernet, loopback, wifi, vpn, cellular, unknown)")
            }
            entries.append((pattern, type))
        }
    }

    /// The type given for interface `name`, if an entry matches it.
    public func type(of name: String) -> NetworkType? {
        entries.first { entry in
            entry.pattern.hasSuffix("*") ? name.hasPrefix(entry.pattern.dropLast()) : name == entry.pattern
        }?.type
    }

    private static let nameBytes: Set<UInt8> = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@".utf8))

    /// The same entries in the same order.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.pattern == $1.pattern && $0.type == $1.type }
    }

    /// Hashes the entries in order.
    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.pattern)
            hasher.combine(entry.type)
        }
    }
}

extension Substring {
    /// Without the spaces at either end.
    fileprivate var trimmingSpaces: Substring {
        let start = firstIndex { $0 != " " } ?? endIndex
        let end = lastIndex { $0 != " " }.map(index(after:)) ?? start
        return self[start..<Swift.max(start, end)]
    }
}
