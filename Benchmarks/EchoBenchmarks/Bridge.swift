import NIOCore
import PreflightCore
import PreflightEdge

/// The edge's bridge path, one core, no sockets: what the media threads' route costs per RTP
/// packet of a bridged call's leg (its statistics, the other leg's stream, SRTP
/// both ways when `srtp`), in time and heap allocations, with `calls` calls whose parties take
/// turns as they would under load.
struct BridgeBench {
    let calls: Int
    let srtp: Bool
    let rounds: Int

    /// A party: its address, and the packets it sends (as it sends them: SRTP when the call is).
    private struct Party {
        var source: SocketAddress
        var packets: [ByteBuffer]
    }

    func run() throws -> (nanoseconds: Double, allocations: Double, missing: Int) {
        // No rate limit: this measures the path, not the limiter's refusals.
        let service = MediaService(configuration: .init(packetsPerSecondPerSource: 1e12, burstPerSource: 1e12))
        var parties: [Party] = []
        for call in 0..<calls {
            var ufrags: [String] = []
            for side in 0..<2 {
                let index = 2 * call + side
                let credentials = benchCredentials(index)
                // The client's key (what the edge decrypts with) and the edge's own.
                let client = SRTPKeyingMaterial.random()
                try service.addBridgeLeg(credentials, srtp: srtp ? (receive: client, send: SRTPKeyingMaterial.random()) : nil)
                let source = try verifiedSource(index, credentials, on: service)
                var sender = srtp ? try SRTPContext(keyingMaterial: client) : nil
                let packets = try (0..<(20 + rounds)).map { sequence in
                    let plain = try RTPPacket(
                        payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: sequence), timestamp: UInt32(sequence) &* 160,
                        ssrc: UInt32(index) &+ 1, headerExtension: MediaExtension.clientExtension(sendMicroseconds: UInt64(sequence) * 20_000),
                        payload: ArraySlice(repeating: 0xFF, count: 160)).encoded()
                    return ByteBuffer(bytes: try sender?.protectRTP(plain) ?? plain)
                }
                parties.append(Party(source: source, packets: packets))
                ufrags.append(credentials.localUfrag)
            }
            service.link(ufrags[0], ufrags[1])
        }
        return measure(service, parties.map(\.source), rounds: rounds) { round, index in parties[index].packets[round] }
    }
}
