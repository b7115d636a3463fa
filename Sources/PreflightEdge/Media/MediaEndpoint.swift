import NIOCore
import NIOPosix
import Synchronization

/// The bound media port of a ``MediaService``: its sockets and what serves them, until
/// ``close()``.
public final class MediaEndpoint: Sendable {
    /// The address the port is bound to (with the port chosen when 0 was asked for).
    public let localAddress: SocketAddress
    private let serving: Serving

    enum Serving: Sendable {
        /// Event-loop channels: the first one's close closes the others.
        case channels(first: any Channel)
        #if os(Linux)
        /// Sockets with a thread each, from a pool that ends when they return.
        case threads([DedicatedMediaSocket], NIOThreadPool)
        #endif
    }

    /// The one close, which every caller of ``close()`` awaits: a second close must not find
    /// the thread pool already shutting down and close descriptors its threads still read.
    private let closing = Mutex<Task<Void, Never>?>(nil)

    init(localAddress: SocketAddress, serving: Serving) {
        self.localAddress = localAddress
        self.serving = serving
    }

    /// Stops serving and closes every socket of the port; returns once the port is free.
    /// Closing again, or from several tasks at once, waits for the same close.
    public func close() async {
        let serving = self.serving
        let task = closing.withLock { task in
            if let task { return task }
            let started = Task { await Self.close(serving) }
            task = started
            return started
        }
        await task.value
    }

    private static func close(_ serving: Serving) async {
        switch serving {
        case .channels(let first):
            first.close(promise: nil)
            try? await first.closeFuture.get()
        #if os(Linux)
        case .threads(let sockets, let pool):
            for socket in sockets { socket.stop() }
            // The threads return once `stop` woke them; only then are the descriptors closed,
            // so that none of them reads a number reused meanwhile.
            try? await pool.shutdownGracefully()
            for socket in sockets { socket.close() }
        #endif
        }
    }
}
