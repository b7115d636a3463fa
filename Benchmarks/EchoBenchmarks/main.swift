import CAllocationCounter
import Foundation
import NIOCore
import PreflightCore
import PreflightEdge

// The edge's echo path, one core, no sockets: what `MediaService.route(_:from:at:appendingTo:)`
// costs per RTP packet of a verified echo session, in time and in heap allocations (counted on
// this thread by interposing the allocator). Build in release mode:
//   swift run -c release preflight-echo-bench [--quick]
// Exits 1 when an echo allocates (more than 0.01 allocations per packet on average).
let quick = CommandLine.arguments.contains("--quick")
let packets = quick ? 200_000 : 2_000_000
let credentials = ICELiteCredentials(localUfrag: "edge", localPassword: "edgepassword0123456789", remoteUfrag: "clnt")
// No rate limit: this measures the path, not the limiter's refusals.
let service = MediaService(configuration: .init(packetsPerSecondPerSource: 1e12, burstPerSource: 1e12))
service.addSession(credentials)
let client = try SocketAddress(ipAddress: "127.0.0.1", port: 50_000)
let check = STUNMessage(type: .bindingRequest, attributes: [.username("edge:clnt"), .priority(1), .iceControlling(1), .useCandidate])
var setup = ByteBuffer()
guard service.route(ByteBuffer(bytes: try check.encoded(integrityKey: Array(credentials.localPassword.utf8), fingerprint: true)),
    from: client, appendingTo: &setup) != nil, service.isVerified(client)
else {
    print("echo bench: the check was not answered")
    exit(1)
}
// 172-byte RTP as a client sends it (12-byte header, its send-time extension, 160 bytes of
// PCMU), every sequence number once so that the receive statistics see a clean stream.
let stream = (0..<65_536).map { sequence in
    ByteBuffer(bytes: (try? RTPPacket(
        payloadType: 0, sequenceNumber: UInt16(sequence), timestamp: UInt32(sequence) &* 160, ssrc: 0x5EED,
        headerExtension: MediaExtension.clientExtension(sendMicroseconds: UInt64(sequence) * 20_000),
        payload: ArraySlice(repeating: 0xFF, count: 160)).encoded()) ?? [])
}
func run(_ count: Int, offset: Int) -> (seconds: Double, allocations: UInt64, echoed: Int) {
    var arena = ByteBufferAllocator().buffer(capacity: 64 << 10)
    var echoed = 0
    let allocationsBefore = allocation_counter_thread_count()
    let start = ContinuousClock.now
    for index in 0..<count {
        let time = Double(offset + index) * 0.000_02
        if service.route(stream[(offset + index) & 0xFFFF], from: client, at: time, appendingTo: &arena) != nil { echoed += 1 }
        // The media channel writes and reuses its buffer once per read burst (32 datagrams).
        if index & 31 == 31 { arena.clear() }
    }
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    return (seconds, allocation_counter_thread_count() &- allocationsBefore, echoed)
}
_ = run(10_000, offset: 0)  // warm-up: dictionaries and buffers at their working size
let result = run(packets, offset: 10_000)
guard result.echoed == packets else {
    print("echo bench: \(packets - result.echoed) of \(packets) packets were not echoed")
    exit(1)
}
let nanoseconds = result.seconds / Double(packets) * 1e9
if result.allocations == UInt64.max {
    print(String(format: "echo path: %.0f ns per packet (%.2f M/s); allocations not counted on this platform", nanoseconds, 1e3 / nanoseconds))
} else {
    let perPacket = Double(result.allocations) / Double(packets)
    print(String(format: "echo path: %.0f ns per packet (%.2f M/s), %.4f allocations per packet (%llu in %d packets)",
        nanoseconds, 1e3 / nanoseconds, perPacket, result.allocations, packets))
    if perPacket > 0.01 {
        print("echo bench: the echo path allocates (target: none per packet)")
        exit(1)
    }
}
