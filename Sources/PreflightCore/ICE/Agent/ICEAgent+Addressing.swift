extension ICEAgent {
    /// One of the agent's UDP sockets, which the driver binds: candidates name the socket they
    /// send from, and the agent names it in every datagram it asks to send.
    public enum Socket: Sendable, Hashable, CaseIterable {
        /// The IPv4 socket: IPv4 host and server-reflexive candidates, TURN over UDP.
        case ipv4
        /// The IPv6 socket (IPv6 host and server-reflexive candidates), when the host has IPv6.
        case ipv6
    }

    /// A STUN or TURN server of the agent, numbered in the order the servers were given.
    public struct ServerID: Sendable, Hashable, CustomStringConvertible {
        /// The server's position in the agent's list.
        public let index: Int

        /// Names the server at `index`.
        public init(index: Int) {
            self.index = index
        }

        /// "server 2".
        public var description: String { "server \(index)" }
    }

    /// Where a local candidate sends from: a socket of its own, or a TURN server's relay.
    public enum Path: Sendable, Hashable {
        /// Straight from one of the agent's sockets (host, server- and peer-reflexive candidates).
        case socket(Socket)
        /// Through the allocation on a TURN server.
        case relay(ServerID)
    }

    /// How bytes leave the agent: a datagram from one of its sockets, or a message on the TCP or
    /// TLS connection to a TURN server.
    public enum Transport: Sendable, Hashable {
        /// A UDP datagram from `socket` to `destination`.
        case udp(Socket, to: TransportAddress)
        /// A message on the stream connection to a TURN server.
        case stream(ServerID)
    }

    /// The way to the remote candidate of a pair, for media and checks alike: the transport,
    /// and for a relayed pair how the relay is told the peer (ChannelData once a channel is
    /// bound, else a Send indication).
    public struct Route: Sendable, Hashable {
        /// Where the (wrapped) bytes go.
        public var transport: Transport
        /// The remote candidate's address as the relay names peers; `nil` for a direct route.
        public var peer: TransportAddress?
        /// The channel bound to the peer, once ChannelBind succeeded.
        public var channel: UInt16?
        /// Whether the relay is reached over TCP or TLS (ChannelData is then padded).
        public var isStream: Bool

        /// Creates a route.
        public init(transport: Transport, peer: TransportAddress? = nil, channel: UInt16? = nil, isStream: Bool = false) {
            self.transport = transport
            self.peer = peer
            self.channel = channel
            self.isStream = isStream
        }

        /// The bytes to put on ``transport`` for `payload`: the payload itself on a direct route,
        /// else wrapped for the relay; `nil` when it cannot be wrapped (too large for TURN).
        public func frame(_ payload: [UInt8]) -> [UInt8]? {
            guard let peer else { return payload }
            return TURNClient.wrap(payload, to: peer, channel: channel, isStream: isStream)
        }
    }

    /// A host address to offer as a host candidate: what the driver found on the interfaces.
    public struct HostInterface: Sendable, Hashable {
        /// The IP address.
        public var address: String
        /// The socket whose port the candidate has: `.ipv4` or `.ipv6`.
        public var socket: Socket
        /// WebRTC's name of the interface's kind: "Ethernet", "Wifi", "Loopback", "Vpn", "Unknown"…
        public var networkType: String

        /// Creates a host interface record.
        public init(address: String, socket: Socket, networkType: String) {
            self.address = address
            self.socket = socket
            self.networkType = networkType
        }
    }
}
