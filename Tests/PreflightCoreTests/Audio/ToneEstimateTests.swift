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
