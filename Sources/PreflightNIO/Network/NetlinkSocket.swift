#if os(Linux)
    import Glibc
    import PreflightCore

    /// A `NETLINK_ROUTE` socket joined to the link and address groups (`RTMGRP_LINK`,
    /// `RTMGRP_IPV4_IFADDR`, `RTMGRP_IPV6_IFADDR`), non-blocking: the I/O of the Linux network
    /// monitor. No privileges are needed.
    /// Its owner closes it (``close()``) once nothing reads it any more.
    struct NetlinkSocket: Sendable {
        let descriptor: Int32
        static let family: Int32 = 16  // AF_NETLINK
        static let groups: UInt32 = 0x1 | 0x10 | 0x100
        /// The largest datagram read at once; a bigger one (MSG_TRUNC) counts as lost messages.
        static let bufferSize = 65_536
        /// The receive buffer asked for: a burst of notifications (a VPN bringing up many
        /// addresses) should not overflow it.
        static let receiveBufferSize: Int32 = 1 << 20

        init() throws(PreflightError) {
            let descriptor = socket(Self.family, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard descriptor >= 0 else {
                throw PreflightError(code: .networkMonitorUnavailable, message: "netlink: socket: \(String(cString: strerror(errno)))")
            }
            var address = Self.kernelAddress(groups: Self.groups)
            let bound = address.withUnsafeMutableBytes { raw in
                bind(descriptor, raw.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            guard bound == 0 else {
                let reason = String(cString: strerror(errno))
                _ = Glibc.close(descriptor)
                throw PreflightError(code: .networkMonitorUnavailable, message: "netlink: bind: \(reason)")
            }
            var size = Self.receiveBufferSize
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            self.descriptor = descriptor
        }

        /// Closes the descriptor.
        func close() {
            _ = Glibc.close(descriptor)
        }

        /// A `sockaddr_nl` (family, padding, port 0, groups): the kernel's address, or this
        /// socket's with the groups to join.
        static func kernelAddress(groups: UInt32 = 0) -> [UInt8] {
            var bytes: [UInt8] = []
            withUnsafeBytes(of: UInt16(family)) { bytes += $0 }
            bytes += [0, 0]
            withUnsafeBytes(of: UInt32(0)) { bytes += $0 }
            withUnsafeBytes(of: groups) { bytes += $0 }
            return bytes
        }

        /// Sends a request to the kernel.
        func send(_ bytes: [UInt8]) {
            var destination = Self.kernelAddress()
            _ = bytes.withUnsafeBytes { payload in
                destination.withUnsafeMutableBytes { raw in
                    sendto(
                        descriptor, payload.baseAddress, payload.count, 0, raw.baseAddress?.assumingMemoryBound(to: sockaddr.self),
                        socklen_t(raw.count))
                }
            }
        }

        /// What one read gave.
        enum Read {
            /// A datagram from the kernel.
            case datagram(Int)
            /// The kernel dropped notifications (`ENOBUFS`), or a datagram was bigger than the buffer.
            case lost
            /// A datagram from another sender than the kernel: ignored.
            case foreign
            /// Nothing more to read now.
            case empty
        }

        /// Reads one datagram into `buffer` (``bufferSize`` bytes).
        func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
            var source = [UInt8](repeating: 0, count: 12)
            var length = socklen_t(12)
            while true {
                let count = source.withUnsafeMutableBytes { raw in
                    recvfrom(
                        descriptor, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC), raw.baseAddress?.assumingMemoryBound(to: sockaddr.self),
                        &length)
                }
                if count < 0 {
                    switch errno {
                    case EINTR: continue
                    case ENOBUFS: return .lost
                    default: return .empty
                    }
                }
                guard count <= buffer.count else { return .lost }
                // sockaddr_nl's port (offset 4): 0 is the kernel.
                guard source[4] == 0, source[5] == 0, source[6] == 0, source[7] == 0 else { return .foreign }
                return .datagram(count)
            }
        }
    }
#endif
