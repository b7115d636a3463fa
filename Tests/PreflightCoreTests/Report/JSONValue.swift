import Foundation

/// A JSON value that keeps JSON's types apart (a string "1" is not the number 1, `true` is not 1),
/// to compare two documents as values: same keys, same types, same numbers.
enum JSONValue: Decodable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .array(let values): "[\(values.map(\.description).joined(separator: ","))]"
        case .object(let members):
            "{\(members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ","))}"
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The paths at which two values differ, for readable test failures.
    func differences(from other: JSONValue, path: String = "$") -> [String] {
        switch (self, other) {
        case (.object(let a), .object(let b)):
            var result: [String] = []
            for key in Set(a.keys).union(b.keys).sorted() {
                switch (a[key], b[key]) {
                case (let x?, let y?): result += x.differences(from: y, path: "\(path).\(key)")
                case (nil, _): result.append("\(path).\(key): missing on the left")
                case (_, nil): result.append("\(path).\(key): missing on the right")
                }
            }
            return result
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return ["\(path): \(a.count) vs \(b.count) elements"] }
            return zip(a, b).enumerated().flatMap { $1.0.differences(from: $1.1, path: "\(path)[\($0)]") }
        default:
            return self == other ? [] : ["\(path): \(self) vs \(other)"]
        }
    }
}
