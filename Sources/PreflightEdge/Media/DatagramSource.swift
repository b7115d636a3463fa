import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Where a received datagram came from, as the media path needs it: the ``SourceKey`` every
/// datagram is looked up by, and the `SocketAddress` only a few need (a STUN answer's mapped
/// address), made from the kernel's `sockaddr` when asked for rather than for every datagram.
package struct DatagramSource {
    let key: SourceKey
    private let address: SocketAddress?
    #if os(Linux)
    private let name: UnsafePointer<sockaddr>?
    private let length: socklen_t
    #endif

    /// A source the caller has as an address (the event-loop path, tests); `nil` for an address
    /// that is neither IPv4 nor IPv6.
    package init?(_ address: SocketAddress) {
        guard let key = SourceKey(address) else { return nil }
        self.key = key
        self.address = address
        #if os(Linux)
        name = nil
        length = 0
        #endif
    }

    #if os(Linux)
    /// A source as the kernel wrote it for `recvmmsg`: `name` must stay valid while this is used.
    init?(name: UnsafePointer<sockaddr>, length: socklen_t) {
        guard let key = SourceKey(name: name, length: length) else { return nil }
        self.init(key: key, name: name, length: length)
    }

    /// A source as the kernel wrote it, with the key already read from `name` (a read burst's
    /// look-up reads every key first): `name` must stay valid while this is used.
    init(key: SourceKey, name: UnsafePointer<sockaddr>, length: socklen_t) {
        self.key = key
        self.name = name
        self.length = length
        address = nil
    }
    #endif

    /// The source as an address (a heap box made now when the source came as a `sockaddr`).
    func resolved() -> SocketAddress? {
        if let address { return address }
        #if os(Linux)
        if let name { return DedicatedMediaSocket.address(of: name, length: length) }
        #endif
        return nil
    }
}
