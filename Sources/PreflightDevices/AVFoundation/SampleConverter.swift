/// Converts a device's audio, 32-bit float frames at the device's rate and channel count (what
/// AVAudioEngine delivers), to a stream's 16-bit frames at its own rate and channel count, chunk
/// by chunk: its state (the filter's history, the interpolation's position) carries across
/// chunks, so the output does not depend on how the device cut its buffers.
///
/// Channels are mixed to mono by averaging, or mono is copied to every channel; a lower rate is
/// reached through a moving average over one output period (so that what the lower rate cannot
/// carry does not fold back) and linear interpolation, as ``AudioResampler`` does for whole
/// files. Enough for voice; not a studio converter.
struct SampleConverter: Sendable {
    let inputRate: Double
    let inputChannels: Int
    let outputRate: Double
    let outputChannels: Int
    /// The moving average's length in input frames (1: no filter, for equal or higher rates).
    let window: Int
    /// The last `window` mapped frames per channel (a ring), their sum, and how many are in.
    private var history: [[Float]]
    private var sums: [Float]
    private var filled = 0
    private var slot = 0
    /// The last filtered frame of the chunks so far, for the interpolation across chunks.
    private var previous: [Float] = []
    /// Input frames converted so far, and output frames made: output frame k falls at input
    /// position k · inputRate / outputRate (from counts, so no rounding error builds up).
    private var consumed = 0
    private var made = 0

    /// - Parameters: the rates in Hz and channel counts of each side; rates are held to
    ///   1 Hz…384 kHz and channels to 1…32, so that no argument makes the work or memory explode.
    init(inputRate: Double, inputChannels: Int, outputRate: Int, outputChannels: Int) {
        self.inputRate = inputRate.isFinite ? min(max(1, inputRate), 384_000) : 48_000
        self.inputChannels = min(max(1, inputChannels), 32)
        self.outputRate = Double(min(max(1, outputRate), 384_000))
        self.outputChannels = min(max(1, outputChannels), 32)
        window = max(1, Int(self.inputRate / self.outputRate))
        history = Array(repeating: Array(repeating: 0, count: window), count: self.outputChannels)
        sums = Array(repeating: 0, count: self.outputChannels)
    }

    /// Converts `frames` interleaved input frames.
    /// - Parameter samples: `frames × inputChannels` floats in −1…1 (outside is clipped).
    /// - Returns: the output frames this chunk completes, interleaved.
    mutating func convert(_ samples: [Float]) -> [Int16] {
        let frames = samples.count / inputChannels
        guard frames > 0 else { return [] }
        // Channel mapping and the moving average, frame by frame.
        var filtered = [[Float]](repeating: [Float](repeating: 0, count: frames), count: outputChannels)
        for frame in 0..<frames {
            let base = frame * inputChannels
            for channel in 0..<outputChannels {
                var value: Float
                if outputChannels == 1 {
                    var sum: Float = 0
                    for input in 0..<inputChannels { sum += samples[base + input] }
                    value = sum / Float(inputChannels)
                } else {
                    value = samples[base + min(channel, inputChannels - 1)]
                }
                // A NaN or infinity would poison the running sum for good: it is silence.
                if !value.isFinite { value = 0 }
                sums[channel] += value - history[channel][slot]
                history[channel][slot] = value
                filtered[channel][frame] = sums[channel] / Float(min(filled + 1, window))
            }
            slot = (slot + 1) % window
            filled = min(filled + 1, window)
            // A float running sum drifts; once a lap it is summed afresh.
            if slot == 0 { sums = history.map { $0.reduce(0, +) } }
        }
        // Linear interpolation; the previous chunk's last frame stands at index −1.
        let step = inputRate / outputRate
        var output: [Int16] = []
        output.reserveCapacity((Int(Double(frames) / step) + 2) * outputChannels)
        while true {
            let at = Double(made) * step - Double(consumed)
            guard at <= Double(frames - 1) else { break }
            let left = Int(at.rounded(.down))
            let fraction = Float(at - Double(left))
            for channel in 0..<outputChannels {
                let a = left < 0 ? (previous.isEmpty ? filtered[channel][0] : previous[channel]) : filtered[channel][left]
                let b = left + 1 < frames ? filtered[channel][left + 1] : a
                output.append(Self.sample(fraction == 0 ? a : a + (b - a) * fraction))
            }
            made += 1
        }
        previous = filtered.map { $0[frames - 1] }
        consumed += frames
        return output
    }

    /// A float in −1…1 as a 16-bit sample, clipped.
    static func sample(_ value: Float) -> Int16 {
        guard value.isFinite else { return 0 }
        return Int16(max(-32768, min(32767, (value * 32768).rounded())))
    }
}
