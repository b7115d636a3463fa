// A stand-in for the part of Apple's Darwin module (the BSD socket API as Swift imports it from
// the SDK's C headers) that PreflightNIO's Apple probe socket
// (Sources/PreflightNIO/Path/DarwinPathProbeSocket.swift) calls: declarations only, with the
// shapes and values of macOS's headers (<sys/socket.h>, <netinet/in.h>, <poll.h>, <fcntl.h>,
// <sys/errno.h>) as Swift imports them: Int32 constants, socklen_t UInt32, the BSD `sockaddr`
// with its length byte, C pointers implicitly unwrapped. scripts/check-apple-backend type-checks
// the backend against it on Linux, where there is no Apple SDK. It catches our own mistakes (a
// wrong integer type, a missing conversion, a call that does not exist); it cannot catch a place
// where this stand-in and the real SDK differ. Nothing here runs: every body is a placeholder.

public typealias socklen_t = UInt32
public typealias sa_family_t = UInt8
public typealias nfds_t = UInt32

public var AF_INET: Int32 { 2 }
public var AF_INET6: Int32 { 30 }
public var SOCK_DGRAM: Int32 { 2 }
public var IPPROTO_IP: Int32 { 0 }
public var IPPROTO_ICMP: Int32 { 1 }
public var IPPROTO_UDP: Int32 { 17 }
public var IPPROTO_IPV6: Int32 { 41 }
public var IPPROTO_ICMPV6: Int32 { 58 }
public var IP_TTL: Int32 { 4 }
public var IPV6_UNICAST_HOPS: Int32 { 4 }
public var F_SETFD: Int32 { 2 }
public var F_GETFL: Int32 { 3 }
public var F_SETFL: Int32 { 4 }
public var FD_CLOEXEC: Int32 { 1 }
public var O_NONBLOCK: Int32 { 4 }
public var POLLIN: Int32 { 1 }
public var EAGAIN: Int32 { 35 }
public var EWOULDBLOCK: Int32 { 35 }
public var ECONNREFUSED: Int32 { 61 }

/// The thread's `errno`, as the Darwin overlay declares it.
public var errno: Int32 {
    get { 0 }
    set {}
}

public struct sockaddr {
    public var sa_len: UInt8
    public var sa_family: sa_family_t
    public var sa_data: (Int8, Int8, Int8, Int8, Int8, Int8, Int8, Int8, Int8, Int8, Int8, Int8, Int8, Int8)
    public init() {
        sa_len = 0
        sa_family = 0
        sa_data = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }
}

public struct pollfd {
    public var fd: Int32
    public var events: Int16
    public var revents: Int16
    public init() {
        fd = 0
        events = 0
        revents = 0
    }
    public init(fd: Int32, events: Int16, revents: Int16) {
        self.fd = fd
        self.events = events
        self.revents = revents
    }
}

public func socket(_ domain: Int32, _ type: Int32, _ protocol: Int32) -> Int32 { -1 }
public func connect(_ socket: Int32, _ address: UnsafePointer<sockaddr>!, _ length: socklen_t) -> Int32 { -1 }
public func getsockname(_ socket: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: UnsafeMutablePointer<socklen_t>!) -> Int32 { -1 }
public func setsockopt(_ socket: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeRawPointer!, _ length: socklen_t) -> Int32 { -1 }
public func send(_ socket: Int32, _ buffer: UnsafeRawPointer!, _ length: Int, _ flags: Int32) -> Int { -1 }
public func recv(_ socket: Int32, _ buffer: UnsafeMutableRawPointer!, _ length: Int, _ flags: Int32) -> Int { -1 }
public func recvfrom(
    _ socket: Int32, _ buffer: UnsafeMutableRawPointer!, _ length: Int, _ flags: Int32, _ address: UnsafeMutablePointer<sockaddr>!,
    _ addressLength: UnsafeMutablePointer<socklen_t>!
) -> Int { -1 }
public func poll(_ fds: UnsafeMutablePointer<pollfd>!, _ count: nfds_t, _ timeout: Int32) -> Int32 { -1 }
public func close(_ descriptor: Int32) -> Int32 { -1 }
public func fcntl(_ descriptor: Int32, _ command: Int32) -> Int32 { -1 }
public func fcntl(_ descriptor: Int32, _ command: Int32, _ value: Int32) -> Int32 { -1 }
public func strerror(_ code: Int32) -> UnsafeMutablePointer<CChar>! { nil }
