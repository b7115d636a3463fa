import Foundation
import PreflightCore

/// A user and network namespace of a test's own (`unshare -rn`, Linux): its own loopback, on
/// which a test may add addresses loopback lacks (a whole IPv6 /64 of attackers, a client in
/// another) without touching the machine's network. Documentation prefixes only: 2001:db8::/32
/// (RFC 3849, "IPv6 Address Prefix Reserved for Documentation") or fd00::/8.
///
/// The skip rule is ``ExternalTool``'s: under `CI=true` a test that needs a namespace always runs
/// (and fails loudly without one); elsewhere it runs only when `unshare -rn` works here and the
/// tools it names are on `PATH`.
///
/// ```swift
/// @Test(.enabled(if: NetworkNamespace.canRun(needing: "ip", "python3"), "needs unshare -rn (user and network namespaces), ip and python3"))
/// ```
public enum NetworkNamespace {
    /// Whether `unshare -rn true` succeeds: the kernel lets this user create a user and network
    /// namespace (user namespaces can be turned off, or denied inside a container). Probed once.
    public static let canCreate: Bool = ExternalTool.isAvailable("unshare")
        && (try? ExternalTool.runBlocking("unshare", ["-rn", "true"])) != nil

    /// Whether a test that needs a namespace and every one of `tools` should run: always under
    /// CI, elsewhere only when a namespace can be made and all the tools are there.
    public static func canRun(needing tools: String...) -> Bool {
        ExternalTool.isCI || (canCreate && tools.allSatisfy(ExternalTool.isAvailable))
    }

    /// Runs `script` with `sh -c` as root of a new namespace whose loopback is up, and returns
    /// its standard output.
    /// - Throws: ``PreflightError`` `.invalidArgument` when `unshare` is missing, the namespace
    ///   cannot be made, or the script exits with a non-zero status (with its standard error).
    public static func run(_ script: String, environment: [String: String] = [:]) async throws(PreflightError) -> String {
        try await ExternalTool.run("unshare", ["-rn", "sh", "-c", "ip link set lo up && " + script], environment: environment)
    }
}
