import NIOCore

/// Where datagrams the edge originates (playback, probe trains) are written: the bound socket,
/// whichever way it is served.
enum MediaOutlet: Sendable {
    case channel(any Channel)
    #if os(Linux)
    case socket(DedicatedMediaSocket)
    #endif

    /// Writes `bytes` to `destination`; nothing waits for the write.
    /// - Returns: whether it went out (a channel queues it: `true`; a media thread's socket
    ///   drops it when closed or full: `false`, as a network would lose it).
    @discardableResult
    func send(_ bytes: [UInt8], to destination: SocketAddress) -> Bool {
        switch self {
        case .channel(let channel):
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: destination, data: ByteBuffer(bytes: bytes)), promise: nil)
            return true
        #if os(Linux)
        case .socket(let socket):
            return socket.send(bytes, to: destination)
        #endif
        }
    }
}
