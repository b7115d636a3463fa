import ArgumentParser
import PreflightCore

/// `--network-type name=type[,name=type…]`: the type of named interfaces (a final `*` matches a
/// prefix), replacing `PREFLIGHT_NETWORK_TYPES`, for every command that follows the host's
/// networks.
public struct NetworkTypeOption: ParsableArguments, Sendable {
    /// The overrides' text.
    @Option(
        name: .customLong("network-type"),
        help: "name=type[,name=type…]: the type of these interfaces (ethernet, loopback, wifi, vpn, unknown, cellular; a final * matches a prefix); replaces PREFLIGHT_NETWORK_TYPES.")
    public var text: String?

    /// Creates the option (ArgumentParser requirement).
    public init() {}

    /// Checks the text.
    public func validate() throws {
        _ = try overrides()
    }

    /// The overrides given; `nil` without the option (the environment's then).
    func overrides() throws -> NetworkTypeOverrides? {
        guard let text else { return nil }
        do {
            return try NetworkTypeOverrides(parsing: text)
        } catch {
            throw ValidationError("--network-type: \(error.message)")
        }
    }
}
