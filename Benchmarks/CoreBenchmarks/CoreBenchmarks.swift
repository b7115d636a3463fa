import PreflightCore

/// The benchmarks `preflight-bench` runs, each with the target its issue names.
enum CoreBenchmarks {
    static var all: [Runner] {
        [
            rtpDecodeAndStatistics(owning: false), rtpDecodeAndStatistics(owning: true), stunRoundTrip(),
            stunRoundTripOwning(), stunRoundTripUnpreparedKey(), stunIntegrityAlone(), srtpProtectAndUnprotect(),
        ]
    }

    struct Runner {
        let benchmark: Benchmark
        let batch: Int
        let body: (Int) -> Int

        func run(rounds: Int, seconds: Double) -> Benchmark.Result {
            benchmark.run(rounds: rounds, seconds: seconds, batch: batch, body)
        }
    }

    /// RTP decode plus RFC 3550 receive-statistics update: the per-packet work of a media receiver.
    /// Packets are 20 ms PCMU frames (160 payload bytes) with a one-byte header extension carrying
    /// an 8-byte send timestamp, as our echo test sends them; sequence numbers run through a whole
    /// 16-bit cycle so the wrap is exercised. Each packet's send-timestamp element is looked up.
    ///
    /// - Parameter owning: decode into an ``RTPPacket`` (slices that retain the datagram) instead
    ///   of parsing an ``RTPHeader`` in place, as the receive path does with a NIO buffer.
    static func rtpDecodeAndStatistics(owning: Bool) -> Runner {
        let count = 65_536
        var packets: [[UInt8]] = []
        packets.reserveCapacity(count)
        let payload = MuLaw.encode(TestSignal().frame(3))
        for index in 0..<count {
            var timestamp: [UInt8] = []
            withUnsafeBytes(of: UInt64(index * 20_000).bigEndian) { timestamp += $0 }
            let packet = RTPPacket(
                payloadType: 0, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160), ssrc: 0x1234_5678,
                headerExtension: try? RTPHeaderExtension.oneByte([.init(id: 1, data: timestamp[...])]),
                payload: payload[...])
            packets.append((try? packet.encoded()) ?? [])
        }
        var state = (statistics: ReceiveStatistics(), next: 0, arrival: 0.0)
        return Runner(
            benchmark: Benchmark(
                name: owning ? "RTP decode to RTPPacket + receive statistics" : "RTP decode (RTPHeader) + receive statistics",
                unit: "packets/s", target: owning ? nil : 5_000_000),
            batch: 4096
        ) { batch in
            // Work on locals for the batch: captured variables would add an exclusivity check per access.
            var (statistics, next, arrival) = state
            defer { state = (statistics, next, arrival) }
            var checksum = 0
            for _ in 0..<batch {
                if owning {
                    if let packet = try? RTPPacket(decoding: packets[next]) {
                        let outcome = statistics.record(
                            sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp,
                            arrival: arrival, clockRate: 8000)
                        checksum &+= packet.payload.count &+ (outcome == .accepted ? 1 : 0)
                            &+ (packet.headerExtension?.element(id: 1)?.count ?? 0)
                    }
                } else {
                    packets[next].withUnsafeBytes { bytes in
                        guard let header = try? RTPHeader(parsing: bytes) else { return }
                        let outcome = statistics.record(
                            sequenceNumber: header.sequenceNumber, rtpTimestamp: header.timestamp,
                            arrival: arrival, clockRate: 8000)
                        checksum &+= header.payloadRange.count &+ (outcome == .accepted ? 1 : 0)
                            &+ (header.extensionElement(id: 1, in: bytes)?.count ?? 0)
                    }
                }
                next = (next + 1) & (count - 1)
                arrival += 0.02
            }
            return checksum &+ statistics.received
        }
    }

    /// An ICE connectivity check as the two agents handle it: the sender encodes a Binding request
    /// with USERNAME, PRIORITY, ICE-CONTROLLING, USE-CANDIDATE, MESSAGE-INTEGRITY and FINGERPRINT;
    /// the receiver parses it in place (``STUNMessageLayout``, as an edge does with a NIO buffer),
    /// verifies integrity and fingerprint and reads USERNAME and PRIORITY. Keys are prepared once.
    static func stunRoundTrip() -> Runner {
        stunRunner(name: "STUN encode + decode in place + verify (MI + FP)", decode: .inPlace, target: 500_000)
    }

    /// The same, decoding into an owning ``STUNMessage`` (typed attributes, strings).
    static func stunRoundTripOwning() -> Runner {
        stunRunner(name: "STUN encode + decode to STUNMessage + verify", decode: .owning, target: nil)
    }

    /// The owning decode with the HMAC keyed again for every message (the `[UInt8]` key overloads).
    static func stunRoundTripUnpreparedKey() -> Runner {
        stunRunner(name: "STUN encode + decode to STUNMessage + verify, key per message", decode: .owningRawKey, target: nil)
    }

    enum STUNDecode { case inPlace, owning, owningRawKey }

    private static func stunRunner(name: String, decode: STUNDecode, target: Double?) -> Runner {
        let password = Array("0123456789abcdefghij+/".utf8)
        let key = STUNIntegrityKey(password)
        let expectedUsername = Array("edgeUfrag:clientUfrag".utf8)
        var generator = SystemRandomNumberGenerator()
        let ids = (0..<256).map { _ in STUNTransactionID.random(using: &generator) }
        var next = 0
        return Runner(
            benchmark: Benchmark(name: name, unit: "messages/s", target: target),
            batch: 1024
        ) { batch in
            var checksum = 0
            var index = next
            defer { next = index }
            for _ in 0..<batch {
                let request = STUNMessage(
                    type: STUNMessageType(method: .binding, class: .request),
                    transactionID: ids[index & 255],
                    attributes: [
                        .username("edgeUfrag:clientUfrag"), .priority(1_853_824_767),
                        .iceControlling(0x0102_0304_0506_0708), .useCandidate,
                    ])
                index &+= 1
                do {
                    switch decode {
                    case .inPlace:
                        let bytes = try request.encoded(integrityKey: key, fingerprint: true)
                        checksum &+= try bytes.withUnsafeBytes {
                            try checkInPlace($0, key: key, expectedUsername: expectedUsername)
                        }
                    case .owning, .owningRawKey:
                        let bytes =
                            decode == .owning
                            ? try request.encoded(integrityKey: key, fingerprint: true)
                            : try request.encoded(integrityKey: password, fingerprint: true)
                        let decoded = try STUNMessage(decoding: bytes)
                        if decode == .owning {
                            try decoded.verifyIntegrity(key: key)
                        } else {
                            try decoded.verifyIntegrity(key: password)
                        }
                        try decoded.verifyFingerprint()
                        checksum &+= bytes.count &+ decoded.attributes.count
                    }
                } catch {
                    checksum &-= 1_000_000
                }
            }
            return checksum
        }
    }

    /// What an ICE-lite edge does with a received check: parse in place, verify, read the attributes.
    static func checkInPlace(
        _ buffer: UnsafeRawBufferPointer, key: STUNIntegrityKey, expectedUsername: [UInt8]
    ) throws(PreflightError) -> Int {
        let layout = try STUNMessageLayout(parsing: buffer)
        try layout.verifyIntegrity(key: key, in: buffer)
        try layout.verifyFingerprint(in: buffer)
        guard layout.value(of: .username, in: buffer, equals: expectedUsername),
            let priority = layout.value(of: .priority, in: buffer)
        else { return -1 }
        return Int(buffer[priority.lowerBound]) &+ layout.attributeCount
    }

    /// Only the MESSAGE-INTEGRITY check of a decoded Binding request (one HMAC-SHA1 over its 72
    /// bytes before the attribute): the floor under ``stunRoundTrip()``, which computes two.
    static func stunIntegrityAlone() -> Runner {
        let password = Array("0123456789abcdefghij+/".utf8)
        let key = STUNIntegrityKey(password)
        let request = STUNMessage(
            type: STUNMessageType(method: .binding, class: .request),
            attributes: [
                .username("edgeUfrag:clientUfrag"), .priority(1_853_824_767),
                .iceControlling(0x0102_0304_0506_0708), .useCandidate,
            ])
        let decoded = (try? request.encoded(integrityKey: key, fingerprint: true)).flatMap { try? STUNMessage(decoding: $0) }
        return Runner(
            benchmark: Benchmark(name: "STUN MESSAGE-INTEGRITY verify alone (one HMAC-SHA1)", unit: "checks/s", target: nil),
            batch: 1024
        ) { batch in
            var checksum = 0
            for _ in 0..<batch {
                do {
                    try decoded?.verifyIntegrity(key: key)
                    checksum &+= 1
                } catch {
                    checksum &-= 1
                }
            }
            return checksum
        }
    }
}
