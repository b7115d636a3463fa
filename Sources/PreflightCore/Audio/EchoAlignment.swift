/// Where a recording that came back (an echo test's playback) sits in what was sent, and how
/// alike the two are there: the offset that maximises the normalised cross-correlation.
///
/// It searches in two steps, so that 10 s against 10 s takes milliseconds: 10 ms RMS envelopes
/// first (every offset), then the samples within ±10 ms of the envelopes' best offset.
public struct EchoAlignment: Sendable, Hashable {
    /// The offset in `sent` where `received` starts, samples.
    public var offset: Int
    /// The normalised cross-correlation at that offset (Pearson's r of the samples, −1…1): about
    /// 1 for a clean copy, about 0 for unrelated audio.
    public var correlation: Double
    /// How many samples were compared.
    public var compared: Int

    /// Creates an alignment from its values.
    public init(offset: Int, correlation: Double, compared: Int) {
        self.offset = offset
        self.correlation = correlation
        self.compared = compared
    }

    /// Aligns `received` within `sent` (both mono at `sampleRate`), comparing at most `window`
    /// samples of `received` (default 2 s at 8 kHz); `nil` when either is shorter than 100 ms or
    /// silent.
    public init?(sent: [Int16], received: [Int16], sampleRate: Int = 8000, window: Int = 16_000) {
        let bin = max(1, sampleRate / 100)
        let length = min(received.count, window)
        guard length >= bin * 10, sent.count >= length else { return nil }
        let sentEnvelope = Self.envelope(sent, bin: bin)
        let receivedEnvelope = Self.envelope(Array(received.prefix(length)), bin: bin)
        var bestBin = 0
        var bestScore = -Double.infinity
        for start in 0...(sentEnvelope.count - receivedEnvelope.count) {
            let score = Self.pearson(receivedEnvelope[...], sentEnvelope[start..<start + receivedEnvelope.count])
            if score > bestScore {
                bestScore = score
                bestBin = start
            }
        }
        let reference = received.prefix(length).map(Double.init)
        var best: (offset: Int, r: Double)?
        for offset in max(0, bestBin * bin - bin)...min(sent.count - length, bestBin * bin + bin) {
            let r = Self.pearson(reference[...], sent[offset..<offset + length].map(Double.init)[...])
            if best == nil || r > best?.r ?? -2 { best = (offset, r) }
        }
        guard let best, best.r.isFinite else { return nil }
        self.init(offset: best.offset, correlation: best.r, compared: length)
    }

    /// RMS per `bin` samples.
    static func envelope(_ samples: [Int16], bin: Int) -> [Double] {
        stride(from: 0, to: samples.count - bin + 1, by: bin).map { start in
            var sum = 0.0
            for sample in samples[start..<start + bin] { sum += Double(sample) * Double(sample) }
            return (sum / Double(bin)).squareRoot()
        }
    }

    /// Pearson's correlation of two equally long series; 0 when either is constant.
    static func pearson(_ a: ArraySlice<Double>, _ b: ArraySlice<Double>) -> Double {
        let n = Double(a.count)
        guard n > 1, a.count == b.count else { return 0 }
        var sumA = 0.0, sumB = 0.0, sumAA = 0.0, sumBB = 0.0, sumAB = 0.0
        for (x, y) in zip(a, b) {
            sumA += x
            sumB += y
            sumAA += x * x
            sumBB += y * y
            sumAB += x * y
        }
        let covariance = sumAB - sumA * sumB / n
        let varianceA = sumAA - sumA * sumA / n
        let varianceB = sumBB - sumB * sumB / n
        guard varianceA > 0, varianceB > 0 else { return 0 }
        return covariance / (varianceA * varianceB).squareRoot()
    }
}
