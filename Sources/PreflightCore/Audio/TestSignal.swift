/// A deterministic speech-like test signal, 8 kHz 16-bit mono: voiced syllables (a glottal tone
/// modulating two formant tones) 180 ms long in 230 ms slots, with a syllable-rate envelope and
/// pauses, so that levels rise and fall as speech does. No recording is shipped or loaded.
///
/// The signal is a pure function of the sample index: frame *n* is the same on every run and
/// every platform (integer pseudo-random numbers, no `Float` transcendental differences matter
/// beyond rounding).
public struct TestSignal: Sendable, Hashable {
    /// Sample rate, Hz.
    public let sampleRate: Int
    /// Peak amplitude of the loudest syllables, 0…32767.
    public let amplitude: Double

    /// Creates the generator.
    /// - Parameters:
    ///   - sampleRate: samples per second (8000 for PCMU).
    ///   - amplitude: the loudest syllables' peak, 0…32767; default 12000 (about −9 dBFS).
    public init(sampleRate: Int = 8000, amplitude: Double = 12000) {
        self.sampleRate = max(1, sampleRate)
        self.amplitude = min(max(0, amplitude), 32767)
    }

    /// The samples of frame `index` of `duration` milliseconds (20 ms frames: 160 samples at 8 kHz).
    public func frame(_ index: Int, milliseconds duration: Int = 20) -> [Int16] {
        let count = sampleRate * max(0, duration) / 1000
        let start = max(0, index) * count
        return (0..<count).map { sample(at: start + $0) }
    }

    /// The sample at absolute position `n` (n ≥ 0; a negative one counts as 0).
    public func sample(at n: Int) -> Int16 {
        let n = max(0, n)
        let t = Double(n) / Double(sampleRate)
        // Syllables of 230 ms (not a divisor of one second, so once-a-second level readings land
        // on different phases); every fourth one is a pause, the others vary in loudness and pitch.
        let syllableLength = 0.23
        let syllable = Int(t / syllableLength)
        let phase = t - Double(syllable) * syllableLength
        let mix = Self.hash(UInt64(syllable))
        if syllable % 4 == 3 { return Int16(Self.noise(UInt64(n)) * 30) }  // breath-level pause
        let loudness = 0.35 + 0.65 * Double(mix & 0xFF) / 255
        let pitch = 95 + Double((mix >> 8) & 0x3F)  // 95…158 Hz voice fundamental
        let formant1 = 500 + Double((mix >> 16) & 0xFF) * 1.5  // 500…882 Hz
        let formant2 = 1200 + Double((mix >> 24) & 0xFF) * 4  // 1200…2220 Hz
        // Attack–decay envelope over the voiced 180 ms of the syllable.
        let voiced = 0.18
        let envelope = phase < voiced ? Self.sine(Double.pi * phase / voiced) : 0
        let glottal = Self.sine(2 * Double.pi * pitch * t)
        let tone =
            0.6 * Self.sine(2 * Double.pi * formant1 * t) * (0.5 + 0.5 * glottal)
            + 0.3 * Self.sine(2 * Double.pi * formant2 * t) * (0.5 + 0.5 * glottal)
            + 0.1 * glottal
        let value = amplitude * loudness * envelope * tone + Self.noise(UInt64(n)) * 30
        return Int16(max(-32767, min(32767, value.rounded())))
    }

    /// sin(x): the series of ``taylorSine(_:)`` with its divisions made multiplications and its
    /// range reduction without a library call, so that a sample costs a few dozen cycles (a 10 s
    /// test generates 80,000 samples of four sines each on the device); within 10⁻⁷ of sin(x) and
    /// identical on every platform. 0 for |x| beyond about 10¹⁴ and for non-finite x.
    static func sine(_ x: Double) -> Double {
        let turns = x * (1 / (2 * Double.pi))
        guard turns.magnitude < 1e14 else { return 0 }  // also false for NaN
        var whole = Int(turns)  // toward zero; one down for a negative fraction (floor)
        if Double(whole) > turns { whole -= 1 }
        var y = (turns - Double(whole)) * (2 * Double.pi)  // 0 ≤ y < 2π
        var sign = 1.0
        if y > Double.pi {
            y -= Double.pi
            sign = -1
        }
        if y > Double.pi / 2 { y = Double.pi - y }
        let y2 = y * y
        let series = y * (1 - y2 * (1 / 6) * (1 - y2 * (1 / 20) * (1 - y2 * (1 / 42) * (1 - y2 * (1 / 72) * (1 - y2 * (1 / 110))))))
        return sign * series
    }

    /// sin(x) by a range-reduced Taylor series: the reference ``sine(_:)`` is tested against.
    static func taylorSine(_ x: Double) -> Double {
        let twoPi = 2 * Double.pi
        var y = x - twoPi * (x / twoPi).rounded(.down)  // 0 ≤ y < 2π
        var sign = 1.0
        if y > Double.pi {
            y -= Double.pi
            sign = -1
        }
        if y > Double.pi / 2 { y = Double.pi - y }
        let y2 = y * y
        let series = y * (1 - y2 / 6 * (1 - y2 / 20 * (1 - y2 / 42 * (1 - y2 / 72 * (1 - y2 / 110)))))
        return sign * series
    }

    /// A uniform value in −1…1 from an integer hash.
    static func noise(_ n: UInt64) -> Double {
        Double(hash(n) & 0xFFFF) / 32767.5 - 1
    }

    /// SplitMix64 finalizer.
    static func hash(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
