import NIOCore
import PreflightCore

extension TransportAddress {
    /// The address of a NIO socket address; `nil` for a Unix domain socket.
    public init?(_ address: SocketAddress) {
        guard let host = address.ipAddress, let port = address.port, let port = UInt16(exactly: port) else { return nil }
        self.init(host: host, port: port)
    }

    /// The address as a NIO socket address.
    public var socketAddress: SocketAddress? {
        try? SocketAddress(ipAddress: host, port: Int(port))
    }
}
