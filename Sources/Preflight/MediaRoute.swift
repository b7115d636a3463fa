internal import NIOCore
internal import PreflightCore
internal import PreflightNIO
import Synchronization

/// How a datagram for the edge leaves the client: straight from the media socket, or through a
/// TURN allocation (ChannelData once the channel is bound, else a Send indication) over UDP or
/// a TCP/TLS connection.
struct MediaRoute: Sendable {
    enum Relay: Sendable {
        /// TURN over UDP from the media socket to the server.
        case udp(MediaSocket, server: SocketAddress)
        /// TURN over a TCP or TLS connection.
        case stream(TURNStreamConnection)
    }

    let socket: MediaSocket
    /// The edge candidate's address.
    let remote: SocketAddress
    /// The relay, for a relayed local candidate.
    let relay: Relay?
    /// The bound channel, once ChannelBind succeeded.
    let channel: UInt16?
    /// The edge candidate's address as the relay names peers (XOR-PEER-ADDRESS).
    let peer: TransportAddress?

    func send(_ bytes: [UInt8]) {
        guard let relay else {
            socket.send(bytes, to: remote)
            return
        }
        let isStream: Bool
        if case .stream = relay { isStream = true } else { isStream = false }
        guard let peer, let wrapped = TURNClient.wrap(bytes, to: peer, channel: channel, isStream: isStream)
        else { return }
        switch relay {
        case .udp(let socket, let server): socket.send(wrapped, to: server)
        case .stream(let connection): connection.send(wrapped)
        }
    }
}

/// The route media takes now: the paced audio task reads it for every packet, the loop
/// replaces it when ICE selects another pair.
final class RouteBox: Sendable {
    private let route = Mutex<MediaRoute?>(nil)

    var current: MediaRoute? { route.withLock { $0 } }

    func set(_ value: MediaRoute?) {
        route.withLock { $0 = value }
    }
}
