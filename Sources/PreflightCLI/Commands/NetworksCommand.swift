import ArgumentParser
import Foundation
import Logging
import PreflightCore
import PreflightNIO

/// `preflight networks`: the host's networks and their types, in the order a call prefers them;
/// with `--watch`, every change as it happens.
public struct NetworksCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "networks",
        abstract: "List the host's networks in the order a call prefers them; --watch prints each change.",
        discussion: """
            Each network is an interface that is up with a usable address, typed ETHERNET, \
            LOOPBACK, WIFI, VPN, UNKNOWN or CELLULAR from what the system says (docs/protocol.md, \
            "Network changes"); --network-type (or PREFLIGHT_NETWORK_TYPES) names types for \
            interfaces the system describes wrongly, e.g. a lab's veth interfaces. Exits 1 with \
            "error 70901: …" when the network monitor cannot start.
            """
    )

    /// Follow the changes.
    @Flag(help: "After the current networks, print every change until interrupted (or --changes).")
    public var watch = false
    /// Stop after this many changes.
    @Option(help: "With --watch, exit after this many changes.")
    public var changes: Int?
    /// Print JSON.
    @Flag(help: "Print each state as one line of JSON: {\"networks\": [{interfaceName, interfaceIndex, type, addresses}]}.")
    public var json = false
    /// The overrides.
    @OptionGroup
    public var networkTypes: NetworkTypeOption

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Validates the options.
    public func validate() throws {
        if let changes, changes < 1 { throw ValidationError("--changes must be at least 1") }
        if changes != nil, !watch { throw ValidationError("--changes needs --watch") }
    }

    /// Prints the networks, and with `--watch` their changes.
    public func run() async throws {
        let overrides = try networkTypes.overrides()
        let monitor: NetworkMonitor
        do {
            monitor = try await NetworkMonitor.start(overrides: overrides, logger: Logger(label: "preflight.networks"))
        } catch {
            throw CommandFailure(error)
        }
        defer { monitor.stop() }
        var printed = 0
        for await snapshot in monitor.changes() {
            // Unbuffered: a watcher reads each change as it comes.
            FileHandle.standardOutput.write(Data((try text(of: snapshot, first: printed == 0) + "\n").utf8))
            guard watch, printed < changes ?? .max else { return }
            printed += 1
        }
    }

    func text(of snapshot: NetworkSnapshot, first: Bool) throws -> String {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(snapshot), as: UTF8.self)
        }
        var lines = [first ? "networks (preferred first):" : "changed: networks (preferred first):"]
        if snapshot.networks.isEmpty { lines.append("  (none)") }
        for network in snapshot.networks {
            // Names come from the system: escaped all the same.
            lines.append("  \(network.type.description.padding(toLength: 8, withPad: " ", startingAt: 0)) "
                + "\(UntrustedText.excerpt(network.interfaceName, limit: 32)) (index \(network.interfaceIndex))  "
                + network.addresses.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }
}
