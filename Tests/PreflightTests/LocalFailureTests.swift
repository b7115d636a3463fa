import Foundation
import Logging
import NIOCore
import NIOPosix
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

/// Local failures have codes of their own (docs/errors.md, 702xx), apart from 70005
/// `invalidArgument`: a socket that does not bind, a process that does not launch.
@Suite(.realTime) struct LocalFailureTests {
    @Test func mediaSocketOnAPortInUseIs70201() async throws {
        let first = try await MediaSocket.bind(host: "127.0.0.1")
        let port = try #require(first.localAddress?.port)
        do {
            let second = try await MediaSocket.bind(host: "127.0.0.1", port: port)
            await second.close()
            Issue.record("a second media socket bound 127.0.0.1:\(port)")
        } catch {
            #expect(error.code == .socketBindFailed)
            #expect(error.code.rawValue == 70201)
            #expect(error.message.contains("127.0.0.1:\(port)"), "\(error.message)")
        }
        await first.close()
    }

    @Test func relayOnAnAddressNotOfThisHostIs70201() async throws {
        // 192.0.2.1 is TEST-NET-1 (RFC 5737): never one of this host's addresses. Binding fails
        // locally (EADDRNOTAVAIL); nothing is sent.
        do {
            let relay = try await ImpairmentRelay.start(host: "192.0.2.1")
            relay.stop()
            Issue.record("the relay bound 192.0.2.1")
        } catch let error as PreflightError {
            #expect(error.code == .socketBindFailed, "\(error)")
        }
    }

    @Test func edgeWithItsMediaPortInUseIs70201() async throws {
        let taken = try await MediaSocket.bind(host: "127.0.0.1")
        let port = try #require(taken.localAddress?.port)
        var configuration = LocalEdge.configuration()
        configuration.mediaPort = port
        let code = await Self.startFailure(configuration)
        #expect(code == .socketBindFailed)
        await taken.close()
    }

    @Test func edgeWithItsHTTPPortInUseIs70201() async throws {
        let taken = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(taken.localAddress?.port)
        var configuration = LocalEdge.configuration()
        configuration.httpPort = port
        let code = await Self.startFailure(configuration)
        #expect(code == .socketBindFailed)
        try await taken.close()
    }

    @Test func missingExecutableIs70202() async {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/preflight")
        do {
            let process = try await EdgeProcess.start(executable: missing)
            process.kill()
            Issue.record("a missing executable started")
        } catch {
            #expect(error.code == .processLaunchFailed)
            #expect(error.code.rawValue == 70202)
            #expect(error.message.contains(missing.path), "\(error.message)")
        }
    }

    @Test func processThatExitsBeforeListeningIs70202() async throws {
        // `false` exits at once with status 1: launched, never listening.
        let executable = try #require(["/bin/false", "/usr/bin/false"].first { FileManager.default.isExecutableFile(atPath: $0) })
        do {
            let process = try await EdgeProcess.start(executable: URL(fileURLWithPath: executable), standardError: .nullDevice)
            process.kill()
            Issue.record("\(executable) was taken for a running edge")
        } catch {
            #expect(error.code == .processLaunchFailed)
            #expect(error.message.contains("before listening"), "\(error.message)")
        }
    }

    /// Runs an edge with `configuration` and returns the code it failed to start with (`nil` when
    /// it started, or failed with something other than a ``PreflightError``).
    static func startFailure(_ configuration: EdgeConfiguration) async -> PreflightError.Code? {
        do {
            let server = try await EdgeServer(configuration: configuration, logger: Logger(label: "test"))
            let running = Task { try await server.run() }
            defer { running.cancel() }
            _ = try await server.addresses()
            Issue.record("the edge started on ports in use")
            return nil
        } catch let error as PreflightError {
            return error.code
        } catch {
            Issue.record("not a PreflightError: \(error)")
            return nil
        }
    }
}
