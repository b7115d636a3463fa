@testable import PreflightCore
import Testing

@Suite struct MuLawTests {
    // Reference values of ITU-T G.711 μ-law (decoder output for these codes, and the codes of
    // these inputs), from the standard's segment table: code 0xFF/0x7F is ±0, 0x80 is the
    // positive maximum 32124, 0x00 the negative maximum −32124.
    @Test(arguments: [
        (0xFF, 0), (0x7F, 0), (0x80, 32124), (0x00, -32124),
        (0xFE, 8), (0x7E, -8), (0xF0, 120), (0xEF, 132), (0x8F, 16764),
    ] as [(UInt8, Int16)])
    func decodeTable(code: UInt8, linear: Int16) {
        #expect(MuLaw.decode(code) == linear)
    }

    @Test(arguments: [
        (0, 0xFF), (-1, 0x7F), (32767, 0x80), (-32768, 0x00), (8, 0xFE), (100, 0xF2), (-100, 0x72),
    ] as [(Int16, UInt8)])
    func encodeTable(linear: Int16, code: UInt8) {
        #expect(MuLaw.encode(linear) == code)
    }

    @Test func everyCodeRoundTrips() {
        // Decoding then encoding reproduces every code except the negative zero 0x7F, which maps to +0.
        for code in UInt8.min...UInt8.max where code != 0x7F {
            #expect(MuLaw.encode(MuLaw.decode(code)) == code, "code \(code)")
        }
    }

    @Test func quantisationErrorStaysWithinTheSegmentStep() {
        // In segment e the step is 2^(e+3); the reconstruction error is at most half a step (plus bias effects at the clip).
        for value in stride(from: -32635, through: 32635, by: 7) {
            let decoded = Int(MuLaw.decode(MuLaw.encode(Int16(value))))
            let magnitude = abs(value) + 0x84
            let exponent = max(0, (Int.bitWidth - magnitude.leadingZeroBitCount - 1) - 7)
            let step = 1 << (exponent + 3)
            #expect(abs(decoded - value) <= step / 2 + 1, "value \(value) decoded \(decoded)")
        }
    }
}

@Suite struct AudioLevelTests {
    @Test func peakOfLinearFrames() {
        #expect(AudioLevel.peak(of: [Int16]()) == 0)
        #expect(AudioLevel.peak(of: [3, -7, 5] as [Int16]) == 7)
        #expect(AudioLevel.peak(of: [Int16.min]) == 32767)
    }

    @Test func peakOfMuLawFrames() {
        #expect(AudioLevel.peak(ofMuLaw: [0xFF, 0xFF]) == 0)
        #expect(AudioLevel.peak(ofMuLaw: [0xFF, 0x00]) == 32124)
    }
}

@Suite struct TestSignalTests {
    @Test func framesAreDeterministicAndSized() {
        let signal = TestSignal()
        #expect(signal.frame(7).count == 160)
        #expect(signal.frame(7) == TestSignal().frame(7))
        #expect(TestSignal(sampleRate: 48000).frame(0).count == 960)
    }

    @Test func levelsVaryLikeSpeech() {
        // One level per 20 ms frame over 10 s: the standard deviation must be far above the
        // constant-audio-level warning's 1 % of full scale (327.67), with pauses near silence.
        let signal = TestSignal()
        let levels = (0..<500).map { Double(AudioLevel.peak(of: signal.frame($0))) }
        let mean = levels.reduce(0, +) / Double(levels.count)
        let deviation = (levels.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(levels.count)).squareRoot()
        #expect(deviation > 3 * 327.67)
        #expect(levels.min() ?? 0 < 200)
        #expect(levels.max() ?? 0 > 6000)
        #expect(levels.max() ?? 0 <= 12000)
        // The one-second levels the stats samples report also vary (no constant-level warning on our own signal).
        let perSecond = stride(from: 0, to: 500, by: 50).map { levels[$0] }
        let secondMean = perSecond.reduce(0, +) / Double(perSecond.count)
        let secondDeviation = (perSecond.map { ($0 - secondMean) * ($0 - secondMean) }.reduce(0, +) / Double(perSecond.count)).squareRoot()
        #expect(secondDeviation > 327.67)
    }

    @Test(arguments: [0.0, 0.5, 1.0, 2.0, 3.0, 4.5, 6.0, -1.0, 100.0])
    func sineMatchesTheLibrary(x: Double) {
        // Foundation-free reference: compare with a high-order series evaluated directly near 0
        // via the identity sin(x) = sin(x - 2πk).
        let reduced = x - 2 * Double.pi * (x / (2 * Double.pi)).rounded()
        var term = reduced
        var sum = reduced
        for k in 1..<20 {
            term *= -reduced * reduced / Double((2 * k) * (2 * k + 1))
            sum += term
        }
        #expect(abs(TestSignal.sine(x) - sum) < 1e-5)
        #expect(abs(TestSignal.taylorSine(x) - sum) < 1e-7)
    }

    @Test func fastSineFollowsTheSeriesEverywhere() {
        // 100,003 points over ten periods either side of 0 (a prime count: every phase is met),
        // and far out, where the test signal's arguments go in an hour-long run.
        let worst = (0..<100_003).map { step in
            let x = -20 * Double.pi + 40 * Double.pi * Double(step) / 100_003
            return abs(TestSignal.sine(x) - TestSignal.taylorSine(x))
        }.max() ?? 1
        #expect(worst < 1e-7)
        let far = [1e6, 2.5e7, -3.3e7 + 0.1].map { abs(TestSignal.sine($0) - TestSignal.taylorSine($0)) }.max() ?? 1
        #expect(far < 1e-6)
        #expect(TestSignal.sine(.nan) == 0 && TestSignal.sine(.infinity) == 0)
    }
}
