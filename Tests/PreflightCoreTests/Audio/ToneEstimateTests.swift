import Foundation
@testable import PreflightCore
import Testing

@Suite struct ToneEstimateTests {
    @Test(arguments: [
        (1000.0, 48_000), (1000.0, 44_100), (440.0, 16_000), (3400.0, 8000), (97.3, 8000), (20_000.0, 48_000),
    ] as [(Double, Int)])
    func findsASinesFrequencyAndAmplitude(frequency: Double, rate: Int) throws {
        let samples = WAVFileTests.sine(frequency: frequency, rate: rate, count: rate / 2, amplitude: 0.4)
        let tone = try #require(ToneEstimate(samples: samples, sampleRate: rate))
        #expect(abs(tone.frequency - frequency) < frequency * 0.0005, "\(tone.frequency) Hz")
        #expect(abs(tone.amplitude - 0.4) < 0.005)
        // The first crossing is where counting starts; one more may fall outside the half second.
        #expect(abs(tone.cycles - Int(frequency / 2)) <= 2)
    }

    /// Noise 30 dB below the tone moves neither its frequency nor its cycle count.
    @Test func noiseBelowTheToneDoesNotAddCycles() throws {
        var generator = SystemRandomNumberGenerator()
        let samples = WAVFileTests.sine(frequency: 1000, rate: 48_000, count: 48_000, amplitude: 0.5).map {
            Int16(clamping: Int($0) + Int.random(in: -500...500, using: &generator))
        }
        let tone = try #require(ToneEstimate(samples: samples, sampleRate: 48_000))
        #expect(abs(tone.frequency - 1000) < 0.5)
        #expect((997...999).contains(tone.cycles), "\(tone.cycles) cycles")
    }

    @Test func silenceAndLessThanACycleHaveNoTone() {
        #expect(ToneEstimate(samples: Array(repeating: 0, count: 8000), sampleRate: 8000) == nil)
        #expect(ToneEstimate(samples: [0, 100, -100], sampleRate: 8000) == nil)
        #expect(ToneEstimate(samples: WAVFileTests.sine(frequency: 100, rate: 8000, count: 60), sampleRate: 8000) == nil)
        #expect(ToneEstimate(samples: WAVFileTests.sine(frequency: 100, rate: 8000, count: 800), sampleRate: 0) == nil)
    }

    @Test(arguments: [(1.0, -3.0103), (0.5, -9.0309), (0.001, -63.0103)] as [(Double, Double)])
    func aSinesRMSLevelInDecibels(amplitude: Double, decibels: Double) {
        let samples = WAVFileTests.sine(frequency: 1000, rate: 48_000, count: 48_000, amplitude: amplitude)
        #expect(abs(AudioLevel.decibels(of: samples) - decibels) < 0.05)
    }

    @Test func silenceIsTheFloorAndFullScaleIsZero() {
        #expect(AudioLevel.decibels(of: [Int16](repeating: 0, count: 100)) == AudioLevel.silenceDecibels)
        #expect(AudioLevel.decibels(of: [Int16]()) == AudioLevel.silenceDecibels)
        #expect(AudioLevel.decibels(fullScale: .nan) == AudioLevel.silenceDecibels)
        #expect(AudioLevel.decibels(fullScale: 2) == 0)
        #expect(AudioLevel.decibels(of: [Int16.min, Int16.min]) == 0)
    }
}

@Suite struct EchoAlignmentTests {
    static let signal = TestSignal(sampleRate: 8000, amplitude: 16000)

    /// A copy of 2 s from 1.5 s in, after 0.7 s of silence, is found where it came from.
    @Test func findsACopyThatStartsWithSilence() throws {
        let sent = (0..<(6 * 8000)).map { Self.signal.sample(at: $0) }
        let received = [Int16](repeating: 0, count: 5600) + Array(sent[12_000..<28_000])
        let alignment = try #require(EchoAlignment(sent: sent, received: received))
        #expect(alignment.offset == 12_000 - 5600)
        #expect(alignment.correlation > 0.999)
    }

    /// Through μ-law and at half the level it is still the same audio; unrelated audio is not.
    @Test func survivesTheCodecButNotAnotherSignal() throws {
        let sent = (0..<(5 * 8000)).map { Self.signal.sample(at: $0) }
        let coded = sent[8000..<32_000].map { MuLaw.decode(MuLaw.encode($0 / 2)) }
        let alignment = try #require(EchoAlignment(sent: sent, received: Array(coded)))
        #expect(alignment.offset == 8000 && alignment.correlation > 0.99)
        let other = TestSignal(sampleRate: 8000, amplitude: 16000)
        let unrelated = (0..<(3 * 8000)).map { other.sample(at: $0 + 1_000_003) }
        let none = try #require(EchoAlignment(sent: sent, received: unrelated))
        #expect(none.correlation < 0.5)
        #expect(alignment.envelopeCorrelation > 0.99 && none.envelopeCorrelation < alignment.envelopeCorrelation)
    }

    @Test func silenceOrTooLittleHasNoAlignment() {
        let sent = (0..<16_000).map { Self.signal.sample(at: $0) }
        #expect(EchoAlignment(sent: sent, received: [Int16](repeating: 0, count: 8000)) == nil)
        #expect(EchoAlignment(sent: sent, received: Array(sent.prefix(500))) == nil)
        #expect(EchoAlignment(sent: Array(sent.prefix(1000)), received: sent) == nil)
    }
}

@Suite struct AudioResamplerTests {
    @Test(arguments: [(48_000, 8000), (44_100, 8000), (8000, 48_000), (16_000, 8000)] as [(Int, Int)])
    func aToneKeepsItsFrequencyAndLevel(from: Int, to: Int) throws {
        let tone = WAVFileTests.sine(frequency: 440, rate: from, count: from, amplitude: 0.5)
        let converted = AudioResampler.resample(tone, from: from, to: to)
        #expect(abs(converted.count - to) <= 1)
        let estimate = try #require(ToneEstimate(samples: converted, sampleRate: to))
        #expect(abs(estimate.frequency - 440) < 0.5)
        #expect(abs(estimate.amplitude - 0.5) < 0.03)
    }

    /// A 6 kHz tone cannot be carried at 8 kHz: the moving average takes it down by about 10 dB
    /// (a 6-sample boxcar's response at 6 kHz of 48 kHz is 0.31) instead of letting it fold back
    /// to 2 kHz at full level.
    @Test func whatTheLowerRateCannotCarryIsAttenuated() {
        let tone = WAVFileTests.sine(frequency: 6000, rate: 48_000, count: 48_000, amplitude: 0.5)
        let converted = AudioResampler.resample(tone, from: 48_000, to: 8000)
        #expect(AudioLevel.rms(of: converted) < 0.5 / 2.0.squareRoot() * 0.35)
    }
}
