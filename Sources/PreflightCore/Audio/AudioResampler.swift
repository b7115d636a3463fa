/// Converts mono 16-bit PCM between sample rates: for lowering the rate, a moving average over
/// one output period first (a low-pass that keeps what the lower rate can carry from folding
/// back), then linear interpolation at the output times. Enough for voice into G.711's 8 kHz;
/// not a studio resampler.
public enum AudioResampler {
    /// `samples` at `sourceRate` as samples at `targetRate`.
    /// - Returns: `samples` itself when the rates are equal or either is not positive.
    public static func resample(_ samples: [Int16], from sourceRate: Int, to targetRate: Int) -> [Int16] {
        guard sourceRate > 0, targetRate > 0, sourceRate != targetRate, !samples.isEmpty else { return samples }
        var input = samples.map(Double.init)
        if targetRate < sourceRate {
            // Moving average over the output period (in input samples), centred.
            let window = max(1, sourceRate / targetRate)
            var smoothed = [Double](repeating: 0, count: input.count)
            var sum = 0.0
            var low = 0
            var high = 0
            for index in input.indices {
                let from = max(0, index - window / 2)
                let to = min(input.count, from + window)
                while high < to {
                    sum += input[high]
                    high += 1
                }
                while low < from {
                    sum -= input[low]
                    low += 1
                }
                smoothed[index] = sum / Double(high - low)
            }
            input = smoothed
        }
        let count = Int((Double(samples.count) * Double(targetRate) / Double(sourceRate)).rounded(.down))
        var output = [Int16](repeating: 0, count: count)
        let step = Double(sourceRate) / Double(targetRate)
        for index in 0..<count {
            let position = Double(index) * step
            let left = min(Int(position), input.count - 1)
            let right = min(left + 1, input.count - 1)
            let fraction = position - Double(left)
            let value = input[left] * (1 - fraction) + input[right] * fraction
            output[index] = Int16(max(-32768, min(32767, value.rounded())))
        }
        return output
    }
}
