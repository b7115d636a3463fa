import Foundation
import PreflightCore

/// What `preflight call --json` prints: the caller's outcome and, when both parties ran in this
/// process (no `--edge-url`, `--to client:…`), the callee's (`null` otherwise).
public struct CallOutcomes: Sendable, Hashable, Codable {
    /// The party that placed the call.
    public var caller: CallOutcome
    /// The party that answered it; `nil` when it ran elsewhere (or never got the invite).
    public var callee: CallOutcome?

    /// Creates the pair.
    public init(caller: CallOutcome, callee: CallOutcome?) {
        self.caller = caller
        self.callee = callee
    }

    /// The first error of the two parties, caller first: what makes the command fail.
    public var error: PreflightError? { caller.preflightError ?? callee?.preflightError }

    /// Pretty-printed JSON with sorted keys; `callee` is written as `null` when absent.
    public func jsonText() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private enum CodingKeys: String, CodingKey { case caller, callee }

    /// Encodes both keys, `callee` as `null` when there is none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(caller, forKey: .caller)
        try container.encode(callee, forKey: .callee)
    }
}
