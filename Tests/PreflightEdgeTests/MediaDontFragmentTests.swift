#if os(Linux)
import Glibc
import NIOCore
import PreflightCore
import Testing

@testable import PreflightEdge

/// The media port's datagrams leave as ones the kernel may not fragment (preflight_media_batch.h
/// says why), whichever way the port is served: read off the wire with a raw socket (root only).
/// With the socket's default (IP_PMTUDISC_WANT) Linux sets DF too, but may still fragment the
/// datagram itself, so gives it an IP ID from its shared generator; a datagram it may not
/// fragment is atomic (RFC 6864) and leaves with ID 0, which is what tells the two apart.
@Suite struct MediaDontFragmentTests {
    @Test(arguments: [MediaService.Configuration.IO.dedicatedThreads, .eventLoop])
    func answersLeaveAsDatagramsTheKernelMayNotFragment(io: MediaService.Configuration.IO) async throws {
        let raw = socket(AF_INET, Int32(SOCK_RAW.rawValue), Int32(IPPROTO_UDP))
        guard raw >= 0 else {
            // A raw socket needs CAP_NET_RAW; under CI=true (root) it must run.
            guard getenv("CI").map({ String(cString: $0) }) != "true" else { throw IOError(errnoCode: errno, reason: "raw socket") }
            print("MediaDontFragmentTests: no raw socket here (not root); skipped")
            return
        }
        defer { close(raw) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(raw, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let service = MediaService(configuration: .init(io: io))
        let server = try await service.bind(host: "127.0.0.1", port: 0)
        let port = UInt16(server.localAddress.port ?? 0)
        // Only the server's datagrams are queued, however much UDP other tests send meanwhile.
        try Self.keepOnly(sourcePort: port, on: raw)
        let answered = try await DedicatedMediaSocketTests.answersBinding(at: server.localAddress, after: [])
        await server.close()
        #expect(answered)
        // The answer's IPv4 header, from the packets the raw socket saw (every UDP datagram on
        // the machine's loopback): the first whose UDP source port is the server's.
        var header: (identification: UInt16, flags: UInt16, found: Bool) = (0, 0, false)
        let deadline = ContinuousClock.now + .seconds(10)
        var packet = [UInt8](repeating: 0, count: 65_536)
        while !header.found, ContinuousClock.now < deadline {
            let count = packet.withUnsafeMutableBytes { recv(raw, $0.baseAddress, $0.count, 0) }
            guard count >= 20 else { continue }
            let headerLength = Int(packet[0] & 0x0F) * 4
            guard count >= headerLength + 8, packet[12..<16] == [127, 0, 0, 1],
                UInt16(packet[headerLength]) << 8 | UInt16(packet[headerLength + 1]) == port
            else { continue }
            header = (UInt16(packet[4]) << 8 | UInt16(packet[5]), UInt16(packet[6]) << 8 | UInt16(packet[7]), true)
        }
        #expect(header.found, "no datagram from the media port seen")
        #expect(header.flags & 0x4000 != 0, "DF not set: flags and fragment offset \(String(header.flags, radix: 16))")
        #expect(header.flags & 0x1FFF == 0)
        #expect(header.identification == 0, "an IP ID (\(header.identification)): the kernel may fragment the datagram")
    }

    /// A classic BPF filter on a raw IPv4 socket: a packet whose UDP source port is not `port`
    /// is not queued (`ldxb 4*([0]&0xf); ldh [x+0]; jeq #port, accept, drop`).
    static func keepOnly(sourcePort port: UInt16, on fd: Int32) throws {
        struct Instruction {
            var code: UInt16
            var jumpTrue: UInt8
            var jumpFalse: UInt8
            var operand: UInt32
        }
        struct Program {
            var count: UInt16
            var instructions: UnsafeMutablePointer<Instruction>
        }
        var instructions = [
            Instruction(code: 0xB1, jumpTrue: 0, jumpFalse: 0, operand: 0),  // BPF_LDX | BPF_B | BPF_MSH
            Instruction(code: 0x48, jumpTrue: 0, jumpFalse: 0, operand: 0),  // BPF_LD | BPF_H | BPF_IND
            Instruction(code: 0x15, jumpTrue: 0, jumpFalse: 1, operand: UInt32(port)),  // BPF_JMP | BPF_JEQ | BPF_K
            Instruction(code: 0x06, jumpTrue: 0, jumpFalse: 0, operand: 0xFFFF),  // BPF_RET: the packet
            Instruction(code: 0x06, jumpTrue: 0, jumpFalse: 0, operand: 0),  // BPF_RET: nothing
        ]
        let attached = instructions.withUnsafeMutableBufferPointer { instructions -> Int32 in
            guard let base = instructions.baseAddress else { return -1 }
            var program = Program(count: UInt16(instructions.count), instructions: base)
            return setsockopt(fd, SOL_SOCKET, 26 /* SO_ATTACH_FILTER */, &program, socklen_t(MemoryLayout<Program>.size))
        }
        guard attached == 0 else { throw IOError(errnoCode: errno, reason: "SO_ATTACH_FILTER") }
        // What arrived between the socket's opening and the filter: not the server's answer (not
        // asked yet), and possibly anything else.
        var drain = [UInt8](repeating: 0, count: 65_536)
        while (drain.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) >= 0 {}
    }

    @Test func aSourceKeyGoesBackToItsAddress() throws {
        for address in [
            try SocketAddress(ipAddress: "198.18.7.9", port: 40_001), try SocketAddress(ipAddress: "127.0.0.1", port: 1),
            try SocketAddress(ipAddress: "2001:db8::1:2", port: 65_535), try SocketAddress(ipAddress: "::1", port: 3478),
        ] {
            let key = try #require(SourceKey(address))
            let back = key.withSockAddr { name, length in DedicatedMediaSocket.address(of: name, length: length) } ?? nil
            #expect(back == address)
            #expect(back.flatMap(SourceKey.init) == key)
        }
        #expect(SourceKey.unknown.withSockAddr { _, _ in true } == nil)
    }
}
#endif
