import FuzzSupport
import PreflightCore

// An adaptive test's judge on hostile evidence: the echoes' original sequence numbers come from
// the network (RoundTripLoss), and the samples' RTT, jitter and loss may be anything, NaN and
// infinities included. Properties: the round-trip counts stay consistent (lost ≤ decided, runs ≤
// lost), a judgement never settles on a non-finite bound, and every warning is in exactly one
// of raised, ruled out and undecided.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVerdict(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    guard input.count >= 4 else { return 0 }
    let maximum = Int(input[0] % 64)
    let sampleCount = Int(input[1] % 40)
    var loss = RoundTripLoss()
    var index = 2 + sampleCount * 8
    while index + 1 < input.count {
        loss.recordEcho(of: UInt16(input[index]) << 8 | UInt16(input[index + 1]))
        index += 2
    }
    precondition(loss.lost <= loss.decided && loss.lossRuns <= loss.lost, "inconsistent round-trip counts")
    var samples: [StatsSample] = []
    var roundTrips = RunningSummary()
    for position in 0..<sampleCount {
        let base = 2 + position * 8
        guard base + 8 <= input.count else { break }
        func value(_ offset: Int) -> Double {
            let bits = UInt16(input[base + offset]) << 8 | UInt16(input[base + offset + 1])
            // Half-precision patterns reach NaN, infinities, negatives and large values alike.
            return Double(Float16(bitPattern: bits))
        }
        let rtt = value(0)
        roundTrips.add(rtt)
        samples.append(StatsSample(
            timestamp: Double(position), rtt: rtt, jitter: value(2),
            mos: MeanOpinionScore.mos(rtt: rtt, jitter: value(2), packetLossPercent: value(4)), packetsLostFraction: value(4),
            audioInputLevel: Int(input[base + 6]) * 128, audioOutputLevel: Int(input[base + 7]) * 128))
    }
    let raised = Set(QualityWarning.allCases.enumerated().filter { input[input.count - 1] & (1 << UInt8($0.offset)) != 0 }.map(\.element))
    let judgement = VerdictJudge(maximumSamples: maximum).judge(
        VerdictEvidence(samples: samples, roundTrips: roundTrips, roundTripLoss: loss, raised: raised))
    if judgement.settled {
        precondition(judgement.meanMOSLower.isFinite && judgement.meanMOSUpper.isFinite, "settled on a non-finite bound")
        precondition(judgement.band != nil, "settled without a band")
    }
    let all = judgement.raised + judgement.ruledOut + judgement.undecided
    precondition(all.count == QualityWarning.allCases.count && Set(all) == Set(QualityWarning.allCases), "a warning in no list or two")
    return 0
}

@_cdecl("FuzzVerdict_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzVerdict)
}
