import Foundation
import PreflightCore
import PreflightTesting
import Testing

/// `preflight networks --watch` against the kernel's real netlink notifications, in a network
/// namespace of the test's own where veth pairs (Ethernet to the kernel, marked cellular and
/// Wi-Fi by `--network-type`) come up and go down.
@Suite struct NetworksCommandTests {
    static var executable: URL { CallCommandTests.executable }

    @Test(.enabled(if: NetworkNamespace.canRun(needing: "ip"), "needs a user and network namespace (unshare -rn) and ip"))
    func watchReportsEachChangeInPreferenceOrder() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("networks-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        // Each step waits (30 s at most) for the line of the one before: the changes stay apart.
        // The watcher holds neither of the script's pipes, and dies with the script.
        let script = """
            true
            '\(Self.executable.path)' networks --watch --json --changes 3 --network-type 'vc*=cellular,vw*=wifi' > '\(output)' 2>/dev/null &
            watcher=$!
            trap 'kill $watcher 2>/dev/null' EXIT
            lines() { n=0; while [ ! -f '\(output)' ] || [ "$(wc -l < '\(output)')" -lt "$1" ]; do n=$((n+1)); [ $n -gt 3000 ] && { echo "no line $1" >&2; exit 1; }; sleep 0.01; done; }
            lines 1
            ip link add vc0 type veth peer name vc1 && ip addr add 198.18.5.1/24 dev vc0 && ip link set vc1 up && ip link set vc0 up
            lines 2
            ip link add vw0 type veth peer name vw1 && ip addr add 198.18.6.1/24 dev vw0 && ip link set vw1 up && ip link set vw0 up
            lines 3
            ip link set vw0 down
            wait $watcher
            cat '\(output)'
            """
        let text = try await NetworkNamespace.run(script)
        let states = try text.split(separator: "\n").map { try JSONDecoder().decode(NetworkSnapshot.self, from: Data($0.utf8)) }
        let names = states.map { $0.networks.map { "\($0.interfaceName) \($0.type) \($0.addresses.joined(separator: " "))" } }
        #expect(names == [
            ["lo LOOPBACK 127.0.0.1 ::1"],
            ["lo LOOPBACK 127.0.0.1 ::1", "vc0 CELLULAR 198.18.5.1"],
            ["lo LOOPBACK 127.0.0.1 ::1", "vw0 WIFI 198.18.6.1", "vc0 CELLULAR 198.18.5.1"],
            ["lo LOOPBACK 127.0.0.1 ::1", "vc0 CELLULAR 198.18.5.1"],
        ])
        #expect(states.map { $0.preferred?.interfaceName } == ["lo", "vc0", "vw0", "vc0"])
    }

    @Test func aBadNetworkTypeIsRefused() async throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["networks", "--network-type", "vc0=satellite"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(message.contains("not a network type"), "\(message)")
    }
}
