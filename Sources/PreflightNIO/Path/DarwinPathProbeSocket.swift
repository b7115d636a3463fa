#if os(Linux)
    // Linux has its own probe socket (PathProbeSocket.swift, `IP_RECVERR`).
#elseif canImport(Darwin)
    import Darwin
    import PreflightCore

    /// The probe socket of a path diagnosis on Apple platforms, which have no `IP_RECVERR`: a UDP
    /// socket connected to the edge's media address sends the probes (its TTL set per probe with
    /// `IP_TTL`, `IPV6_UNICAST_HOPS`) and reads the edge's STUN answers; an ICMP datagram socket
    /// (`socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)`, `IPPROTO_ICMPV6`: no privileges needed) reads
    /// the ICMP errors, which it is handed for every datagram of the host. An error is ours only
    /// when it quotes a datagram to the edge's address and port from the UDP socket's own port
    /// (``ICMPMessage``); the rest is dropped unread. Both non-blocking; the owner closes them.
    struct PathProbeSocket: Sendable {
        let descriptor: Int32
        let icmp: Int32
        let isIPv6: Bool
        let destination: TransportAddress
        let localPort: UInt16

        init(destination: TransportAddress) throws(PreflightError) {
            isIPv6 = destination.family == .ipv6
            self.destination = destination
            let family = isIPv6 ? AF_INET6 : AF_INET
            let udp = socket(family, SOCK_DGRAM, IPPROTO_UDP)
            guard udp >= 0 else { throw Self.failure("socket", destination) }
            let icmp = socket(family, SOCK_DGRAM, isIPv6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP)
            guard icmp >= 0 else {
                let error = Self.failure("ICMP datagram socket", destination)
                _ = Darwin.close(udp)
                throw error
            }
            var address = Self.socketAddress(destination)
            let connected = address.withUnsafeMutableBytes { raw -> Int32 in
                guard let base = raw.baseAddress else { return -1 }
                return connect(udp, base.assumingMemoryBound(to: sockaddr.self), socklen_t(truncatingIfNeeded: raw.count))
            }
            var bound = [UInt8](repeating: 0, count: 128)
            var length = socklen_t(truncatingIfNeeded: bound.count)
            let named = bound.withUnsafeMutableBytes { raw -> Int32 in
                guard let base = raw.baseAddress else { return -1 }
                return getsockname(udp, base.assumingMemoryBound(to: sockaddr.self), &length)
            }
            let nonBlocking = [udp, icmp].allSatisfy { fcntl($0, F_SETFL, fcntl($0, F_GETFL) | O_NONBLOCK) == 0 }
            guard connected == 0, named == 0, nonBlocking else {
                let error = Self.failure("connect", destination)
                _ = Darwin.close(udp)
                _ = Darwin.close(icmp)
                throw error
            }
            for descriptor in [udp, icmp] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            // Both BSD socket addresses carry the port at bytes 2-3, in network order.
            localPort = UInt16(bound[2]) << 8 | UInt16(bound[3])
            descriptor = udp
            self.icmp = icmp
        }

        /// The BSD `sockaddr_in` or `sockaddr_in6` of `address`: its length first, then the family.
        /// Built here rather than through NIO's `SocketAddress.withSockAddr` (as the Linux socket
        /// does), so that every type this file hands the system comes from Darwin alone, which the
        /// type check against scripts/apple-stubs/Darwin.swift can then see.
        static func socketAddress(_ address: TransportAddress) -> [UInt8] {
            let port = [UInt8(address.port >> 8), UInt8(address.port & 0xFF)]
            if address.family == .ipv6 {
                let header: [UInt8] = [28, UInt8(truncatingIfNeeded: AF_INET6)]
                return header + port + [0, 0, 0, 0] + address.bytes + [0, 0, 0, 0]
            }
            let header: [UInt8] = [16, UInt8(truncatingIfNeeded: AF_INET)]
            return header + port + address.bytes + [UInt8](repeating: 0, count: 8)
        }

        static func failure(_ step: String, _ destination: TransportAddress) -> PreflightError {
            let reason = strerror(errno).map { String(cString: $0) } ?? "error \(errno)"
            return PreflightError(code: .pathDiagnosisUnavailable, message: "path probe: \(step) for \(destination): \(reason)")
        }

        func close() {
            _ = Darwin.close(descriptor)
            _ = Darwin.close(icmp)
        }

        /// Sends `bytes` with `ttl`; whether the kernel took it.
        func send(_ bytes: [UInt8], ttl: Int) -> Bool {
            var hops = Int32(truncatingIfNeeded: ttl)
            let level = isIPv6 ? IPPROTO_IPV6 : IPPROTO_IP
            let option = isIPv6 ? IPV6_UNICAST_HOPS : IP_TTL
            guard setsockopt(descriptor, level, option, &hops, socklen_t(MemoryLayout<Int32>.size)) == 0 else { return false }
            return bytes.withUnsafeBytes { Darwin.send(descriptor, $0.baseAddress, $0.count, 0) } == bytes.count
        }

        /// Waits up to `milliseconds` for something to read on either socket.
        func wait(milliseconds: Int32) {
            var entries = [
                pollfd(fd: descriptor, events: Int16(truncatingIfNeeded: POLLIN), revents: 0),
                pollfd(fd: icmp, events: Int16(truncatingIfNeeded: POLLIN), revents: 0),
            ]
            _ = poll(&entries, 2, max(0, milliseconds))
        }

        /// Every answer waiting: the edge's STUN answers, and the ICMP errors that quote our
        /// probes (at most 256 reads of each at a time).
        func answers(host: String) -> [PathProbeAnswer] {
            var found: [PathProbeAnswer] = []
            var buffer = [UInt8](repeating: 0, count: 1500)
            for _ in 0..<256 {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                // A port unreachable from the edge fails a connected socket's read
                // (ECONNREFUSED); the ICMP socket has the error itself.
                guard count >= 0 || errno == ECONNREFUSED else { break }
                if count > 0, let answer = PathProbeAnswer(stun: Array(buffer.prefix(count)), from: host) { found.append(answer) }
            }
            for _ in 0..<256 {
                var sender = [UInt8](repeating: 0, count: 128)
                var length = socklen_t(truncatingIfNeeded: sender.count)
                let count = buffer.withUnsafeMutableBytes { data in
                    sender.withUnsafeMutableBytes { raw -> Int in
                        guard let base = raw.baseAddress else { return -1 }
                        return recvfrom(icmp, data.baseAddress, data.count, 0, base.assumingMemoryBound(to: sockaddr.self), &length)
                    }
                }
                guard count >= 0 else { break }
                guard let message = ICMPMessage(parsing: Array(buffer.prefix(count)), ipv6: isIPv6),
                    message.quotedDestination == destination.host, message.quotedDestinationPort == destination.port,
                    message.quotedSourcePort == localPort
                else { continue }
                // The sender's address: sockaddr_in's at byte 4, sockaddr_in6's at byte 8.
                guard let from = message.sender ?? TransportAddress(bytes: isIPv6 ? sender[8..<24] : sender[4..<8], port: 0)?.host else { continue }
                if let answer = PathProbeAnswer(message.kind, transactionID: message.transactionID, from: from, host: host) {
                    found.append(answer)
                }
            }
            return found
        }
    }
#endif
