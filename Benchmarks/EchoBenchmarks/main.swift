import CAllocationCounter
import Foundation
import NIOCore
import PreflightCore
import PreflightEdge

// The edge's echo and bridge paths, one core, no sockets: what the media threads' route (a
// source as its key, a bridged packet's destination as its key) costs per RTP packet of a verified echo session, in time and in heap allocations (counted on
// this thread by interposing the allocator): one session, then 1,000 sessions in turn, as an
// edge under load sees them (tables at working size, each session's state in and out of the
// cache). Build in release mode:
//   swift run -c release preflight-echo-bench [--quick]
// Then the same for a bridged call's packets (BridgeBench), plain RTP and SRTP.
// Exits 1 when an echo or a bridged packet allocates (more than 0.01 allocations per packet on
// average).
let quick = CommandLine.arguments.contains("--quick")

/// A service with `count` verified echo sessions, each from its own address.
func verifiedSessions(_ count: Int) throws -> (MediaService, [SocketAddress]) {
    // No rate limit: this measures the path, not the limiter's refusals.
    let service = MediaService(configuration: .init(packetsPerSecondPerSource: 1e12, burstPerSource: 1e12))
    var sources: [SocketAddress] = []
    for index in 0..<count {
        let credentials = benchCredentials(index)
        service.addSession(credentials)
        sources.append(try verifiedSource(index, credentials, on: service))
    }
    return (service, sources)
}

/// Session `index`'s ICE credentials.
func benchCredentials(_ index: Int) -> ICELiteCredentials {
    ICELiteCredentials(localUfrag: "e\(index)", localPassword: "edgepassword0123456789", remoteUfrag: "c\(index)")
}

/// Session `index`'s own address (127.64.x.y), verified by a nominating check for `credentials`.
func verifiedSource(_ index: Int, _ credentials: ICELiteCredentials, on service: MediaService) throws -> SocketAddress {
    let source = try SocketAddress(ipAddress: "127.64.\(index / 250).\(1 + index % 250)", port: 40_000)
    let check = STUNMessage(
        type: .bindingRequest,
        attributes: [.username("\(credentials.localUfrag):\(credentials.remoteUfrag)"), .priority(1), .iceControlling(1), .useCandidate])
    var replies = ByteBuffer()
    _ = service.route(
        ByteBuffer(bytes: try check.encoded(integrityKey: Array(credentials.localPassword.utf8), fingerprint: true)), from: source,
        appendingTo: &replies)
    guard service.isVerified(source) else { throw PreflightError(code: .malformed, message: "bench: check \(index) not answered") }
    return source
}

// 172-byte RTP as a client sends it (12-byte header, its send-time extension, 160 bytes of
// PCMU), every sequence number once so that the receive statistics see a clean stream.
let stream = (0..<65_536).map { sequence in
    ByteBuffer(bytes: (try? RTPPacket(
        payloadType: 0, sequenceNumber: UInt16(sequence), timestamp: UInt32(sequence) &* 160, ssrc: 0x5EED,
        headerExtension: MediaExtension.clientExtension(sendMicroseconds: UInt64(sequence) * 20_000),
        payload: ArraySlice(repeating: 0xFF, count: 160)).encoded()) ?? [])
}

/// `rounds` packets from each source in turn (after a warm-up round of 20; `packet` gives the
/// one a source sends in a round), the buffer reused every 32 replies as the media channel does
/// once per read burst.
func measure(
    _ service: MediaService, _ sources: [SocketAddress], rounds: Int, packet: (_ round: Int, _ source: Int) -> ByteBuffer
) -> (nanoseconds: Double, allocations: Double, missing: Int) {
    var arena = ByteBufferAllocator().buffer(capacity: 32 << 10)
    let sources = sources.compactMap(DatagramSource.init)
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
            if service.route(packet(round, index), from: source, at: time, appendingTo: &arena) != nil { echoed += 1 }
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
    let result = measure(service, sources, rounds: rounds) { round, _ in stream[round & 0xFFFF] }
    guard result.missing == 0 else {
        print("echo bench: \(result.missing) packets were not echoed")
        exit(1)
    }
    let allocations = result.allocations.isNaN ? "allocations not counted on this platform" : String(format: "%.4f allocations per packet", result.allocations)
    print(String(format: "echo path, %d session(s) in turn: %.0f ns per packet (%.2f M/s), ", sessions, result.nanoseconds, 1e3 / result.nanoseconds) + allocations)
    if result.allocations > 0.01 { allocates = true }
}
for (calls, rounds) in [(1, quick ? 100_000 : 1_000_000), (500, quick ? 100 : 1_000)] {
    for srtp in [false, true] {
        let result = try BridgeBench(calls: calls, srtp: srtp, rounds: rounds).run()
        guard result.missing == 0 else {
            print("bridge bench: \(result.missing) packets were not forwarded")
            exit(1)
        }
        let allocations = result.allocations.isNaN ? "allocations not counted on this platform" : String(format: "%.4f allocations per packet", result.allocations)
        print(String(format: "bridge path, %@, %d call(s) in turn: %.0f ns per packet (%.2f M/s), ", srtp ? "SRTP" : "plain RTP", calls, result.nanoseconds, 1e3 / result.nanoseconds) + allocations)
        if result.allocations > 0.01 { allocates = true }
    }
}
if allocates {
    print("echo bench: the echo or bridge path allocates (target: none per packet)")
    exit(1)
}
