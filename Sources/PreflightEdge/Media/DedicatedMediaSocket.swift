import CMediaBatch
import NIOCore
import Synchronization

#if os(Linux)
import Glibc

/// One UDP media socket served by a thread of its own (``MediaService/Configuration/IO/dedicatedThreads``):
/// `recvmmsg` waits for a datagram and takes every one queued with it, ``MediaService`` routes
/// each into one reply buffer, and `sendmmsg` sends the replies together. Nothing passes through
/// an event loop's pipeline, so a datagram costs the two system calls' share and the routing.
///
/// The socket is blocking: a full send buffer holds the thread at most 200 ms per batch (the rest
/// of the batch is then dropped), and ``stop()`` wakes a waiting read by shutting the socket's
/// receiving side down. Other threads (playback, probe trains) send through ``send(_:to:)``,
/// which never blocks.
final class DedicatedMediaSocket: Sendable {
    /// The address the socket is bound to (the port chosen when 0 was asked for).
    let localAddress: SocketAddress
    /// The descriptor, for the serving thread: closed only after ``run(service:batch:)`` returned.
    private let descriptor: Int32
    /// The same descriptor for senders on other threads; `nil` once closed, so that no send
    /// reaches a descriptor number the process has since given to another file.
    private let sending: Mutex<Int32?>
    private let stopping = Atomic<Bool>(false)
    /// The message headers, vectors and addresses of one `recvmmsg`/`sendmmsg`: used by the
    /// serving thread alone, freed by ``close()`` (after the thread returned).
    private nonisolated(unsafe) let calls: OpaquePointer
    /// Datagrams one call takes, the capacity of ``calls``.
    let batch: Int

    /// Bytes a datagram may have: a longer one is dropped (and counted as malformed).
    static let slot = 2048

    private init(descriptor: Int32, localAddress: SocketAddress, calls: OpaquePointer, batch: Int) {
        self.descriptor = descriptor
        self.localAddress = localAddress
        self.calls = calls
        self.batch = batch
        sending = Mutex(descriptor)
    }

    /// Opens and binds a socket.
    /// - Parameter reusePort: binds with `SO_REUSEPORT`, so that several sockets share the port.
    /// - Parameter batch: datagrams one `recvmmsg` takes (``MediaService/Configuration/datagramsPerRead``, 1–1024).
    /// - Throws: `IOError` when the address does not resolve, the socket cannot be opened or bound,
    ///   or there is no memory for the batch.
    static func bind(host: String, port: Int, reusePort: Bool, bufferSize: Int, batch: Int = 32) throws -> DedicatedMediaSocket {
        let address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        let batch = max(1, min(batch, 1024))
        guard let calls = preflight_media_batch_create(UInt32(batch)) else { throw IOError(errnoCode: ENOMEM, reason: "recvmmsg batch") }
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(Int32(address.protocol.rawValue), type, 0)
        guard fd >= 0 else {
            let code = errno
            preflight_media_batch_destroy(calls)
            throw IOError(errnoCode: code, reason: "socket")
        }
        do {
            // No SO_REUSEADDR: on a UDP socket it lets another socket bind the same port and
            // take its datagrams; the media threads share theirs only with SO_REUSEPORT, which
            // the kernel allows between sockets of the same user.
            if reusePort { try setOption(fd, SO_REUSEPORT, 1) }
            // Kernel-clamped to net.core.rmem_max / wmem_max, as a setsockopt from NIO would be.
            try setOption(fd, SO_RCVBUF, Int32(clamping: bufferSize))
            try setOption(fd, SO_SNDBUF, Int32(clamping: bufferSize))
            // A send timeout bounds how long a full send buffer holds the thread. No receive
            // timeout: a blocking wait with one arms a kernel timer on every wake-up (a fifth more
            // system time per datagram here); `stop` wakes the read with `shutdown` instead.
            let timeoutSet = preflight_media_socket_set_send_timeout(fd, 200_000)
            guard timeoutSet == 0 else { throw IOError(errnoCode: -timeoutSet, reason: "setsockopt") }
            // Media leaves unfragmented, with DF set: preflight_media_batch.h says why.
            let dontFragment = preflight_media_socket_set_dont_fragment(fd, Int32(address.protocol.rawValue))
            guard dontFragment == 0 else { throw IOError(errnoCode: -dontFragment, reason: "setsockopt") }
            let bound = address.withSockAddr { Glibc.bind(fd, $0, socklen_t($1)) }
            guard bound == 0 else { throw IOError(errnoCode: errno, reason: "bind \(address)") }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0, let local = withUnsafePointer(to: &storage, { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Self.address(of: $0, length: length) }
            }) else { throw IOError(errnoCode: errno, reason: "getsockname") }
            return DedicatedMediaSocket(descriptor: fd, localAddress: local, calls: calls, batch: batch)
        } catch {
            _ = Glibc.close(fd)
            preflight_media_batch_destroy(calls)
            throw error
        }
    }

    private static func setOption(_ fd: Int32, _ name: Int32, _ value: Int32) throws {
        var value = value
        guard setsockopt(fd, SOL_SOCKET, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw IOError(errnoCode: errno, reason: "setsockopt")
        }
    }

    /// Serves the socket until ``stop()``: on the calling thread, which it blocks.
    func run(service: MediaService) {
        let capacity = batch
        var received = ByteBufferAllocator().buffer(capacity: capacity * Self.slot)
        // Replies of one batch, written in place by the service; 32 KiB holds 128 echoes.
        var replies = ByteBufferAllocator().buffer(capacity: 32 << 10)
        // A reply to its datagram's source is sent to the address the kernel gave (the message's
        // index); only a reply elsewhere (a bridge's other leg) carries an address of its own.
        var pending: [(offset: Int, length: Int, message: UInt32, destination: MediaService.Destination)] = []
        pending.reserveCapacity(capacity)
        // The burst's sources, looked up together before they are routed (``MediaService/lookUp``).
        var keys = [SourceKey](repeating: SourceKey.unknown, count: capacity)
        var entries = [Int](repeating: -1, count: capacity)
        while !stopping.load(ordering: .relaxed) {
            received.clear()
            var count = 0
            received.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity * Self.slot) { space in
                guard let base = space.baseAddress else { return 0 }
                count = Int(preflight_media_batch_receive(calls, descriptor, base, Self.slot))
                return count > 0 ? capacity * Self.slot : 0
            }
            guard count > 0 else {
                // A signal, or the socket shut down by `stop`: look at the flag again.
                if count == -Int(EBADF) || count == -Int(ENOTSOCK) { return }
                // Anything else (no kernel memory) would fail again at once: not a busy loop.
                if count != -Int(EINTR) { usleep(1000) }
                continue
            }
            // A read that `stop` woke returns one empty "datagram" of a shut-down socket: not one.
            if stopping.load(ordering: .relaxed) { return }
            service.datagramsReceived.add(count, ordering: .relaxed)
            // One clock read for the batch: every datagram in it arrived by the time the read returned.
            let arrival = service.now
            for index in 0..<count {
                var length = socklen_t(0)
                // No key (another family): one no entry has, so that it finds none.
                keys[index] = preflight_media_batch_source(calls, UInt32(index), &length).flatMap { SourceKey(name: $0, length: length) } ?? .unknown
            }
            keys.withUnsafeBufferPointer { keys in
                entries.withUnsafeMutableBufferPointer { entries in
                    service.lookUp(UnsafeBufferPointer(rebasing: keys[..<count]), entries: UnsafeMutableBufferPointer(rebasing: entries[..<count]))
                }
            }
            for index in 0..<UInt32(count) {
                // Longer than a slot: cut, so no longer what was sent (RTP has no length to tell).
                if preflight_media_batch_truncated(calls, index) != 0 {
                    service.countMalformed()
                    continue
                }
                // The key read for the look-up; `unknown`: another family, no media source.
                var length = socklen_t(0)
                let key = keys[Int(index)]
                guard key != .unknown, let name = preflight_media_batch_source(calls, index, &length),
                    let datagram = received.getSlice(
                        at: Int(index) * Self.slot, length: preflight_media_batch_length(calls, index))
                else { continue }
                let source = DatagramSource(key: key, name: name, length: length)
                if let (length, destination) = service.route(
                    datagram, from: source, received: arrival, entry: entries[Int(index)], appendingTo: &replies)
                {
                    pending.append((replies.writerIndex - length, length, index, destination))
                }
            }
            guard !pending.isEmpty else { continue }
            let sent = replies.withUnsafeReadableBytes { bytes -> UInt32 in
                guard let base = bytes.baseAddress else { return 0 }
                var ready: UInt32 = 0
                for reply in pending {
                    let set: Int32
                    switch reply.destination {
                    case .source:
                        var length = socklen_t(0)
                        guard let name = preflight_media_batch_source(calls, reply.message, &length) else { continue }
                        set = preflight_media_batch_set_reply(calls, ready, base + reply.offset, reply.length, name, length)
                    case .address(let address):
                        set = address.withSockAddr { name, length in
                            preflight_media_batch_set_reply(calls, ready, base + reply.offset, reply.length, name, socklen_t(length))
                        }
                    case .peer(let key):
                        set =
                            key.withSockAddr { name, length in
                                preflight_media_batch_set_reply(calls, ready, base + reply.offset, reply.length, name, length)
                            } ?? -1
                    }
                    if set == 0 { ready += 1 }
                }
                return preflight_media_batch_send(calls, descriptor, ready)
            }
            service.datagramsSent.add(Int(sent), ordering: .relaxed)
            pending.removeAll(keepingCapacity: true)
            replies.clear()
        }
    }

    /// Sends one datagram from another thread without blocking: `false` when the socket is
    /// closed or its buffer is full.
    func send(_ bytes: [UInt8], to destination: SocketAddress) -> Bool {
        sending.withLock { fd in
            guard let fd else { return false }
            let sent = bytes.withUnsafeBytes { buffer in
                destination.withSockAddr { sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), $0, socklen_t($1)) }
            }
            return sent >= 0
        }
    }

    /// Asks the serving thread to return: `shutdown` wakes its read at once, and every read
    /// after it returns at once, so the thread sees the flag on its next turn.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        sending.withLock { fd in
            if let fd { _ = shutdown(fd, Int32(SHUT_RD)) }
        }
    }

    /// Closes the descriptor and frees the batch: only once the serving thread has returned (or
    /// never started). Closing twice does nothing more.
    func close() {
        sending.withLock { fd in
            guard let open = fd else { return }
            _ = Glibc.close(open)
            preflight_media_batch_destroy(calls)
            fd = nil
        }
    }

    /// The address a `sockaddr` holds; `nil` for a family other than IPv4 and IPv6.
    static func address(of name: UnsafePointer<sockaddr>, length: socklen_t) -> SocketAddress? {
        switch Int32(name.pointee.sa_family) {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            return name.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee) }
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            return name.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee) }
        default:
            return nil
        }
    }
}
#endif
