import Foundation

extension AudioLevel {
    /// The level reported for digital silence, dBFS: the floor of Apple's `AVAudioRecorder`
    /// power meters, so that levels read the same on every platform.
    public static let silenceDecibels = -160.0

    /// The root mean square of `samples` on the 0…1 scale of full-scale 16-bit PCM (0 when empty).
    public static func rms(of samples: some Collection<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for sample in samples {
            let value = Double(sample) / 32768
            sum += value * value
        }
        return (sum / Double(samples.count)).squareRoot()
    }

    /// A 0…1 full-scale amplitude as dBFS: 20·log10(value), at most 0 and at least
    /// ``silenceDecibels`` (a full-scale sine's RMS, 0.707, is −3.0 dBFS).
    public static func decibels(fullScale value: Double) -> Double {
        guard value.isFinite, value > 0 else { return silenceDecibels }
        return min(0, max(silenceDecibels, 20 * log10(value)))
    }

    /// The RMS level of `samples` in dBFS (see ``decibels(fullScale:)``).
    public static func decibels(of samples: some Collection<Int16>) -> Double {
        decibels(fullScale: rms(of: samples))
    }
}
