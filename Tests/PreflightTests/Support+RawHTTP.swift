import NIOCore
import NIOPosix
import Synchronization

/// Raw bytes to the edge's HTTP port over a plain TCP socket (no HTTP client, no TLS), and what
/// came back until the edge closed the connection or the wait ended.
enum RawHTTP {
    /// What a connection saw.
    struct Reply: Sendable {
        /// Everything the edge sent, as text.
        var text: String
        /// Whether the edge closed the connection (end of stream or reset) within the wait.
        var closedByPeer: Bool
        /// From the connection's start until the edge closed it, or until the wait ended.
        var elapsed: Duration
    }

    /// The text received so far, shared with the reading task.
    final class Received: Sendable {
        private let text = Mutex("")
        var value: String { text.withLock { $0 } }
        func append(_ more: String) { text.withLock { $0 += more } }
    }

    /// A connected channel that nothing reads from: for holding a connection open.
    static func hold(port: Int) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
    }

    /// Sends `request`, then the bytes of `drip` one every `dripInterval`, and reads until the
    /// edge closes or `waitAtMost` passes.
    /// - Parameter source: the local address to connect from (a loopback address); any by default.
    static func exchange(
        port: Int, request: String, drip: String = "", dripInterval: Duration = .milliseconds(200), source: String? = nil,
        waitAtMost: Duration = .seconds(5)
    ) async throws -> Reply {
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel = try await bootstrap.connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
        let start = ContinuousClock.now
        let text = Received()
        let closed = try await channel.executeThenClose { inbound, outbound in
            // A refused connection may be closed before the request is out: what it answers counts.
            try? await outbound.write(ByteBuffer(string: request))
            return await withTaskGroup(of: Bool?.self) { group in
                group.addTask {
                    do {
                        for try await buffer in inbound { text.append(String(buffer: buffer)) }
                    } catch {
                        // A reset is a close too.
                    }
                    return Task.isCancelled ? nil : true
                }
                group.addTask {
                    for character in drip {
                        try? await Task.sleep(for: dripInterval)
                        guard (try? await outbound.write(ByteBuffer(string: String(character)))) != nil else { break }
                    }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: waitAtMost)
                    return false
                }
                var result = false
                while let next = await group.next() {
                    if let next {
                        result = next
                        break
                    }
                }
                group.cancelAll()
                return result
            }
        }
        return Reply(text: text.value, closedByPeer: closed, elapsed: ContinuousClock.now - start)
    }

    /// `GET path` with `Connection: close` and optional extra header lines.
    static func get(port: Int, path: String, headers: [String] = [], source: String? = nil) async throws -> Reply {
        let extra = headers.map { $0 + "\r\n" }.joined()
        return try await exchange(
            port: port, request: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(extra)Connection: close\r\n\r\n",
            source: source)
    }
}
