import CAllocationCounter
import Foundation
import NIOCore
import PreflightCore
import PreflightEdge

// The edge's echo path, one core, no sockets: what `MediaService.route(_:from:at:appendingTo:)`
// costs per RTP packet of a verified echo session, in time and in heap allocations (counted on
// this thread by interposing the allocator): one session, then 1,000 sessions in turn, as an
// edge under load sees them (tables at working size, each session's state in and out of the
// cache). Build in release mode:
//   swift run -c release preflight-echo-bench [--quick]
// Exits 1 when an echo allocates (more than 0.01 allocations per packet on average).
let quick = CommandLine.arguments.contains("--quick")

/// A service with `count` verified echo sessions, each from its own address.
func verifiedSessions(_ count: Int) throws -> (MediaService, [SocketAddress]) {
    // No rate limit: this measures the path, not the limiter's refusals.
    let service = MediaService(configuration: .init(packetsPerSecondPerSource: 1e12, burstPerSource: 1e12))
    var sources: [SocketAddress] = []
    var replies = ByteBuffer()
    for index in 0..<count {
        let credentials = ICELiteCredentials(localUfrag: "e\(index)", localPassword: "edgepassword0123456789", remoteUfrag: "c\(index)")
        service.addSession(credentials)
        let source = try SocketAddress(ipAddress: "127.64.\(index / 250).\(1 + index % 250)", port: 40_000)
        let check = STUNMessage(
            type: .bindingRequest, attributes: [.username("e\(index):c\(index)"), .priority(1), .iceControlling(1), .useCandidate])
        _ = service.route(
            ByteBuffer(bytes: try check.encoded(integrityKey: Array(credentials.localPassword.utf8), fingerprint: true)), from: source,
            appendingTo: &replies)
        guard service.isVerified(source) else { throw PreflightError(code: .malformed, message: "echo bench: check \(index) not answered") }
        sources.append(source)
    }
    return (service, sources)
}

// 172-byte RTP as a client sends it (12-byte header, its send-time extension, 160 bytes of
// PCMU), every sequence number once so that the receive statistics see a clean stream.
let stream = (0..<65_536).map { sequence in
    ByteBuffer(bytes: (try? RTPPacket(
        payloadType: 0, sequenceNumber: UInt16(sequence), timestamp: UInt32(sequence) &* 160, ssrc: 0x5EED,
        headerExtension: MediaExtension.clientExtension(sendMicroseconds: UInt64(sequence) * 20_000),
        payload: ArraySlice(repeating: 0xFF, count: 160)).encoded()) ?? [])
}

/// `rounds` packets from each source in turn (after a warm-up round of 20), the buffer reused
/// every 32 replies as the media channel does once per read burst.
func measure(_ service: MediaService, _ sources: [SocketAddress], rounds: Int) -> (nanoseconds: Double, allocations: Double, missing: Int) {
    var arena = ByteBufferAllocator().buffer(capacity: 32 << 10)
    var echoed = 0
    var allocations: UInt64 = 0
    let start = ContinuousClock.now
    var measuredStart = start
    for round in 0..<(20 + rounds) {
        if round == 20 {
            echoed = 0
            allocations = allocation_counter_thread_count()
            measuredStart = .now
        }
        for (index, source) in sources.enumerated() {
            let time = Double(round) * 0.02 + Double(index) * 0.000_001
            if service.route(stream[round & 0xFFFF], from: source, at: time, appendingTo: &arena) != nil { echoed += 1 }
            if arena.writerIndex > 32 * 240 { arena.clear() }
        }
    }
    let packets = rounds * sources.count
    let seconds = (ContinuousClock.now - measuredStart) / .seconds(1)
    let counted = allocation_counter_thread_count()
    return (seconds / Double(packets) * 1e9, counted == .max ? .nan : Double(counted &- allocations) / Double(packets), packets - echoed)
}

var allocates = false
for (sessions, rounds) in [(1, quick ? 200_000 : 2_000_000), (1_000, quick ? 200 : 2_000)] {
    let (service, sources) = try verifiedSessions(sessions)
    let result = measure(service, sources, rounds: rounds)
    guard result.missing == 0 else {
        print("echo bench: \(result.missing) packets were not echoed")
        exit(1)
    }
    let allocations = result.allocations.isNaN ? "allocations not counted on this platform" : String(format: "%.4f allocations per packet", result.allocations)
    print(String(format: "echo path, %d session(s) in turn: %.0f ns per packet (%.2f M/s), ", sessions, result.nanoseconds, 1e3 / result.nanoseconds) + allocations)
    if result.allocations > 0.01 { allocates = true }
}
if allocates {
    print("echo bench: the echo path allocates (target: none per packet)")
    exit(1)
}
