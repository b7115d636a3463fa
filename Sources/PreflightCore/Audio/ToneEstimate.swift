/// The frequency and amplitude of a steady tone in a recording: how the device tests check that
/// a 1 kHz tone played on a speaker or fed to a microphone came back as itself.
///
/// The frequency is counted from rising zero crossings, each placed between its two samples by
/// linear interpolation, over the stretch from the first crossing to the last: for a clean sine
/// that is exact to well under 1 Hz at any sample rate, and noise or harmonics below the tone do
/// not move it. The amplitude is the RMS times √2 (a sine's peak).
public struct ToneEstimate: Sendable, Hashable {
    /// The tone's frequency, Hz.
    public var frequency: Double
    /// The tone's peak amplitude on the 0…1 full-scale of 16-bit PCM.
    public var amplitude: Double
    /// Full cycles counted.
    public var cycles: Int

    /// Creates an estimate from its values.
    public init(frequency: Double, amplitude: Double, cycles: Int) {
        self.frequency = frequency
        self.amplitude = amplitude
        self.cycles = cycles
    }

    /// Estimates the tone in `samples` (mono), or `nil` when fewer than 2 rising crossings were
    /// found (silence, or less than a cycle).
    /// - Parameters:
    ///   - samples: mono 16-bit PCM.
    ///   - sampleRate: Hz.
    ///   - hysteresis: a crossing counts only after the signal went below −`hysteresis` (0…1
    ///     full scale), so that noise around zero is not counted as cycles; default 0.01 (−40 dBFS).
    public init?(samples: [Int16], sampleRate: Int, hysteresis: Double = 0.01) {
        guard sampleRate > 0, samples.count > 2 else { return nil }
        let threshold = hysteresis * 32768
        var armed = false
        var first: Double?
        var last = 0.0
        var crossings = 0
        for index in 1..<samples.count {
            let previous = Double(samples[index - 1])
            let current = Double(samples[index])
            if current < -threshold { armed = true }
            if armed, previous < 0, current >= 0 {
                // Where the line from previous to current meets zero, in samples.
                let position = Double(index - 1) + (-previous) / (current - previous)
                if first == nil { first = position }
                last = position
                crossings += 1
                armed = false
            }
        }
        guard let first, crossings >= 2, last > first else { return nil }
        let cycles = crossings - 1
        self.init(
            frequency: Double(cycles) * Double(sampleRate) / (last - first),
            amplitude: AudioLevel.rms(of: samples) * 2.0.squareRoot(),
            cycles: cycles)
    }
}
