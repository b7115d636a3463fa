import Foundation
import Logging
internal import NIOCore
internal import PreflightCore
internal import PreflightNIO

/// One run of a ``PreflightTest``: signaling, ICE checks, media and sampling, driven by a single
/// loop over one event stream (so the run's state has one owner), with helper tasks for the
/// WebSocket, the socket, timers and pacing.
struct TestRun {
    let test: PreflightTest
    let startTime: Int64
    var options: PreflightOptions { test.options }
    var logger: Logger { test.logger }

    enum Event: Sendable {
        case signaling(SignalingConnection.Event)
        case datagram(Datagram)
        case datagram6(Datagram)
        case iceTick
        case serverResolved(Int, SocketAddress?)
        case turnConnected(Int, TURNStreamConnection)
        case turnConnectFailed(Int, PreflightError)
        case turnMessage(Int, Datagram)
        case turnClosed(Int)
        case mediaSent(bytes: Int, level: Int)
        case sampleTick
        case watchdogTick
        case deadline(Deadline)
    }

    enum Deadline: Sendable {
        case signaling
        case gathering
        case ice
        case testEnd
        case drained
        case maximum
    }

    func run() async {
        do {
            let report = try await perform()
            test.finish(.success(report))
        } catch {
            test.finish(.failure(Task.isCancelled && error.code != .cancelled
                ? PreflightError(code: .cancelled, message: "preflight test cancelled", underlying: error) : error))
        }
    }

    private func perform() async throws(PreflightError) -> PreflightReport {
        let socket = try await MediaSocket.bind()
        // IPv6 host candidates get their own socket; a host without IPv6 simply has none.
        let socket6 = try? await MediaSocket.bind(host: "::")
        let signaling = SignalingConnection(
            url: options.edgeURL, trustedCertificatesFile: options.edgeTrustedCertificatesFile, logger: logger)
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let outcome = await withTaskGroup(of: Void.self) { group -> Result<PreflightReport, PreflightError> in
            group.addTask { await signaling.run() }
            group.addTask {
                for await event in signaling.events { continuation.yield(.signaling(event)) }
            }
            group.addTask {
                for await datagram in socket.datagrams { continuation.yield(.datagram(datagram)) }
            }
            if let socket6 {
                group.addTask {
                    for await datagram in socket6.datagrams { continuation.yield(.datagram6(datagram)) }
                }
            }
            var loop = Loop(run: self, socket: socket, socket6: socket6, signaling: signaling, events: continuation)
            loop.after(options.signalingTimeout, .deadline(.signaling), in: &group)
            let result: Result<PreflightReport, PreflightError>
            do throws(PreflightError) {
                result = .success(try await loop.run(events, group: &group))
            } catch {
                // The partial report keeps the states up to the failure.
                loop.closeTimeline()
                loop.publish()
                result = .failure(error)
            }
            // Hang up politely when the call is still up, then tear everything down.
            if let callSid = loop.callSid, loop.callOpen {
                try? await signaling.send(.hangup(.init(callSid: callSid, reason: result.reason)))
            }
            await loop.closeICE()
            await signaling.close()
            await socket.close()
            await socket6?.close()
            continuation.finish()
            group.cancelAll()
            return result
        }
        return try outcome.get()
    }
}

extension Result<PreflightReport, PreflightError> {
    fileprivate var reason: String {
        switch self {
        case .success: "completed"
        case .failure(let error): "error \(error.code): \(error.message)"
        }
    }
}
