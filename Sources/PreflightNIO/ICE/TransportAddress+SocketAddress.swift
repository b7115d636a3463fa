import NIOCore
import PreflightCore

extension TransportAddress {
    /// The address of a NIO socket address; `nil` for a Unix domain socket. Read from the socket
    /// address's bytes (every datagram's source goes through here: no text is formatted or
    /// parsed), at the offsets Linux and the BSDs share: the port at 2 in both, the address at 4
    /// in `sockaddr_in` and at 8 in `sockaddr_in6`.
    public init?(_ address: SocketAddress) {
        guard let port = address.port.flatMap({ UInt16(exactly: $0) }) else { return nil }
        let made: TransportAddress?
        switch address {
        case .v4(let v4):
            made = withUnsafeBytes(of: v4.address) { TransportAddress(bytes: $0[4..<8], port: port) }
        case .v6(let v6):
            made = withUnsafeBytes(of: v6.address) { TransportAddress(bytes: $0[8..<24], port: port) }
        case .unixDomainSocket:
            made = nil
        }
        guard let made else { return nil }
        self = made
    }

    /// The address as a NIO socket address, made from its packed bytes (every datagram sent goes
    /// through here: no text is formatted or parsed).
    public var socketAddress: SocketAddress? {
        try? SocketAddress(packedIPAddress: ByteBuffer(bytes: bytes), port: Int(port))
    }
}
