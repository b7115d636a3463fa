#if os(Linux)
    import Glibc
    import NIOCore
    import PreflightCore

    /// The UDP socket of a path diagnosis on Linux: connected to the edge's media address, with
    /// `IP_RECVERR` (`IPV6_RECVERR`) on, so that the ICMP errors its probes cause come back on
    /// its error queue with the offender's address; no privileges are needed. Each probe is sent
    /// with its own TTL (`IP_TTL`, `IPV6_UNICAST_HOPS`). Non-blocking; its owner closes it.
    struct PathProbeSocket: Sendable {
        let descriptor: Int32
        let isIPv6: Bool

        init(destination: TransportAddress) throws(PreflightError) {
            isIPv6 = destination.family == .ipv6
            let descriptor = socket(
                isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard descriptor >= 0 else {
                throw PreflightError(code: .pathDiagnosisUnavailable, message: "path probe: socket: \(String(cString: strerror(errno)))")
            }
            var on: Int32 = 1
            let level = isIPv6 ? Int32(IPPROTO_IPV6) : Int32(IPPROTO_IP)
            let option = isIPv6 ? Int32(IPV6_RECVERR) : Int32(IP_RECVERR)
            let connected = destination.socketAddress?.withSockAddr { connect(descriptor, $0, socklen_t($1)) } ?? -1
            guard setsockopt(descriptor, level, option, &on, socklen_t(MemoryLayout<Int32>.size)) == 0, connected == 0 else {
                let reason = String(cString: strerror(errno))
                _ = Glibc.close(descriptor)
                throw PreflightError(code: .pathDiagnosisUnavailable, message: "path probe: \(destination): \(reason)")
            }
            self.descriptor = descriptor
        }

        func close() {
            _ = Glibc.close(descriptor)
        }

        /// Sends `bytes` with `ttl`; whether the kernel took it.
        func send(_ bytes: [UInt8], ttl: Int) -> Bool {
            var hops = Int32(ttl)
            let level = isIPv6 ? Int32(IPPROTO_IPV6) : Int32(IPPROTO_IP)
            let option = isIPv6 ? Int32(IPV6_UNICAST_HOPS) : Int32(IP_TTL)
            guard setsockopt(descriptor, level, option, &hops, socklen_t(MemoryLayout<Int32>.size)) == 0 else { return false }
            return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) } == bytes.count
        }

        /// Waits up to `milliseconds` for something to read (a datagram or an error).
        func wait(milliseconds: Int32) {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, max(0, milliseconds))
        }

        /// Every answer waiting: the error queue's ICMP errors and the destination's STUN answers
        /// (at most 256 reads at a time).
        func answers(host: String) -> [PathProbeAnswer] {
            var found: [PathProbeAnswer] = []
            for _ in 0..<256 {
                var progressed = false
                if let entry = readError() {
                    progressed = true
                    if let report = entry,
                        let answer = PathProbeAnswer(report.kind, transactionID: report.transactionID, from: report.offender, host: host)
                    {
                        found.append(answer)
                    }
                }
                if let datagram = readDatagram() {
                    progressed = true
                    if let answer = PathProbeAnswer(stun: datagram, from: host) { found.append(answer) }
                } else if errno != EAGAIN, errno != EWOULDBLOCK {
                    // A pending error failed the read (and is cleared); the queue has it.
                    progressed = true
                }
                if !progressed { break }
            }
            return found
        }

        /// One error from the error queue: `nil` when it is empty; `.some(nil)` for one that
        /// is not an ICMP error.
        private func readError() -> ICMPErrorReport?? {
            var payload = [UInt8](repeating: 0, count: 512)
            var control = [UInt8](repeating: 0, count: 512)
            let count = payload.withUnsafeMutableBytes { data in
                control.withUnsafeMutableBytes { controlBytes in
                    var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var message = msghdr()
                        message.msg_iov = vectorPointer
                        message.msg_iovlen = 1
                        message.msg_control = controlBytes.baseAddress
                        message.msg_controllen = controlBytes.count
                        let read = recvmsg(descriptor, &message, Int32(MSG_ERRQUEUE))
                        return read < 0 ? (read, 0) : (read, Int(message.msg_controllen))
                    }
                }
            }
            guard count.0 >= 0 else { return nil }
            let report = ICMPErrorReport(control: Array(control.prefix(count.1)), payload: payload.prefix(Int(count.0)))
            return .some(report)
        }

        /// One datagram from the destination; `nil` when none is waiting. A pending error makes
        /// the read fail: it is left for ``readError()``.
        private func readDatagram() -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 1500)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count >= 0 else { return nil }
            return Array(buffer.prefix(count))
        }
    }
#endif
