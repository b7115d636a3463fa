extension ICEAgent {
    /// One of the agent's UDP sockets, which the driver binds: candidates name the socket they
    /// send from, and the agent names it in every datagram it asks to send.
    ///
    /// Two are bound at the start on every interface (``ipv4``, ``ipv6``); a network that appears
    /// during a run gets sockets of its own, bound to its addresses
    /// (``ICEAgent/addHosts(_:sockets:now:)``), which go with it (``ICEAgent/removeSockets(_:now:)``).
    public struct Socket: Sendable, Hashable, CustomStringConvertible {
        /// The socket's number: 0 and 1 for ``ipv4`` and ``ipv6``, others for a network's own.
        public let id: Int
        /// Its address family.
        public let family: TransportAddress.Family

        /// Names a socket.
        public init(id: Int, family: TransportAddress.Family) {
            self.id = id
            self.family = family
        }

        /// The IPv4 socket: IPv4 host and server-reflexive candidates, TURN over UDP.
        public static let ipv4 = Socket(id: 0, family: .ipv4)
        /// The IPv6 socket (IPv6 host and server-reflexive candidates), when the host has IPv6.
        public static let ipv6 = Socket(id: 1, family: .ipv6)

        /// "ipv4", "ipv6", or "socket 3 (IPv4)".
        public var description: String {
            switch self {
            case .ipv4: "ipv4"
            case .ipv6: "ipv6"
            default: "socket \(id) (\(family == .ipv4 ? "IPv4" : "IPv6"))"
            }
        }
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
        /// The socket whose port the candidate has: `.ipv4` or `.ipv6`, or a network's own.
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
