import FuzzSupport
import PreflightCore

// The last-mile probe's inputs from the network: a probe packet (the edge's downlink, the
// client's uplink) and arrival records (the edge's `probeArrivals`, or a hostile edge's packets).
// Properties: a decoded probe packet re-encodes to one that decodes the same; the estimator fed
// arbitrary records returns finite, non-negative figures (loss 0–100 %), two halves or none, a
// rate for every outcome but noEstimate; the controller's rate stays within 0…its ceiling.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProbe(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    input.withUnsafeBytes { bytes in
        guard let header = try? RTPHeader(parsing: bytes), let (sequence, sent) = ProbePacket.decode(header, in: bytes) else { return }
        precondition(header.payloadType == ProbePacket.payloadType && header.payloadRange.count >= 4, "decoded a non-probe packet")
        guard let again = ProbePacket.encode(sequence: sequence, sendMicroseconds: sent, ssrc: header.ssrc, size: bytes.count, fromEdge: true)
        else { preconditionFailure("a decoded packet does not re-encode") }
        again.withUnsafeBytes { raw in
            guard let header = try? RTPHeader(parsing: raw), let decoded = ProbePacket.decode(header, in: raw) else {
                preconditionFailure("a re-encoded packet does not decode")
            }
            precondition(decoded.sequence == sequence && decoded.sendMicroseconds == sent, "re-encoding changed the packet")
        }
    }

    // 14-byte records: sequence (4), send µs (4), arrival µs (4), wire bytes (2).
    var arrivals: [ProbeArrival] = []
    var index = 0
    func integer(_ range: Range<Int>) -> UInt64 { input[range].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    while index + 14 <= input.count {
        arrivals.append(ProbeArrival(
            sequence: UInt32(integer(index..<index + 4)), sendTime: Double(integer(index + 4..<index + 8)) / 1e6,
            arrivalTime: Double(integer(index + 8..<index + 12)) / 1e6, wireBytes: Int(integer(index + 12..<index + 14))))
        index += 14
    }
    let expected = 100_000 + Double(count % 50) * 100_000
    let hold = arrivals.first.map { BandwidthEstimator.Hold.sentFrom($0.sendTime) }
    for configuration in [BandwidthEstimator.Configuration(), .init(minimumPacketsAfterKnee: 2, minimumSpan: 0), .init(averagesWholeTrain: true)] {
        let estimate = BandwidthEstimator.estimate(arrivals, expectedBitrate: expected, hold: hold, configuration: configuration)
        precondition(estimate.rate.isFinite && estimate.rate >= 0, "rate \(estimate.rate)")
        precondition(estimate.lossPercent >= 0 && estimate.lossPercent <= 100, "loss \(estimate.lossPercent)")
        precondition(estimate.jitterMilliseconds.isFinite && estimate.jitterMilliseconds >= 0, "jitter \(estimate.jitterMilliseconds)")
        precondition(estimate.halves.isEmpty || estimate.halves.count == 2, "halves \(estimate.halves.count)")
        precondition(estimate.packetsReceived <= arrivals.count, "more packets than records")
        if estimate.outcome != .noEstimate { precondition(estimate.rate > 0 && estimate.reason == nil, "an estimate without a rate") }
    }
    var controller = BandwidthProbeController(expectedBitrate: expected, start: 0)
    for (step, arrival) in arrivals.enumerated() {
        let now = Double(step) * 0.01
        controller.observe(arrival, at: now)
        if let rate = controller.rate(at: now) {
            precondition(rate > 0 && rate <= controller.ceiling, "rate \(rate) outside 0…\(controller.ceiling)")
        }
    }
    return 0
}

@_cdecl("FuzzProbe_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzProbe)
}
