import NIOCore

/// Where datagrams the edge originates (playback, probe trains) are written: the bound socket,
/// whichever way it is served.
enum MediaOutlet: Sendable {
    case channel(any Channel)
    #if os(Linux)
    case socket(DedicatedMediaSocket)
    #endif

    /// Writes `bytes` to `destination`; nothing waits for the write.
    func send(_ bytes: [UInt8], to destination: SocketAddress) {
        switch self {
        case .channel(let channel):
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: destination, data: ByteBuffer(bytes: bytes)), promise: nil)
        #if os(Linux)
        case .socket(let socket):
            _ = socket.send(bytes, to: destination)
        #endif
        }
    }
}
