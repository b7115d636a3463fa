/// Where a recording that came back (an echo test's playback) sits in what was sent, and how
/// alike the two are there: the offset that maximises the normalised cross-correlation.
///
/// It searches in two steps, so that 10 s against 10 s takes milliseconds: 10 ms RMS envelopes
/// first (every offset), then the samples within ±10 ms of the envelopes' best offset.
public struct EchoAlignment: Sendable, Hashable {
    /// The offset in `sent` where `received` starts, samples (negative when `received` begins
    /// before `sent` does).
    public var offset: Int
    /// The normalised cross-correlation at that offset (Pearson's r of the samples, −1…1): about
    /// 1 for a clean copy, about 0 for unrelated audio.
    public var correlation: Double
    /// How many samples were compared.
    public var compared: Int
    /// The correlation of the two 10 ms RMS envelopes at the best offset: whether the loudness
    /// rises and falls alike, which a gap or a fraction of a sample's shift hardly changes.
    public var envelopeCorrelation: Double

    /// Creates an alignment from its values.
    public init(offset: Int, correlation: Double, compared: Int, envelopeCorrelation: Double = 0) {
        self.offset = offset
        self.correlation = correlation
        self.compared = compared
        self.envelopeCorrelation = envelopeCorrelation
    }

    /// Aligns `received` within `sent` (both mono at `sampleRate`) by the loudest `window`
    /// samples of `received` (default 2 s at 8 kHz: a recording that starts with silence is
    /// still found); `nil` when either is shorter than 100 ms or `received` is silent.
    public init?(sent: [Int16], received: [Int16], sampleRate: Int = 8000, window: Int = 16_000) {
        let bin = max(1, sampleRate / 100)
        let length = min(received.count, window)
        guard length >= bin * 10, sent.count >= length else { return nil }
        let sentEnvelope = Self.envelope(sent, bin: bin)
        let receivedEnvelope = Self.envelope(received, bin: bin)
        let windowBins = length / bin
        guard receivedEnvelope.count >= windowBins, sentEnvelope.count >= windowBins else { return nil }
        // The loudest stretch of what came back is the one to look for.
        var windowStart = 0
        var loudest = -1.0
        var energy = receivedEnvelope[0..<windowBins].reduce(0, +)
        for start in 0...(receivedEnvelope.count - windowBins) {
            if start > 0 { energy += receivedEnvelope[start + windowBins - 1] - receivedEnvelope[start - 1] }
            if energy > loudest {
                loudest = energy
                windowStart = start
            }
        }
        guard loudest > 0 else { return nil }
        let probe = receivedEnvelope[windowStart..<windowStart + windowBins]
        var bestBin = 0
        var bestScore = -Double.infinity
        for start in 0...(sentEnvelope.count - windowBins) {
            let score = Self.pearson(probe, sentEnvelope[start..<start + windowBins])
            if score > bestScore {
                bestScore = score
                bestBin = start
            }
        }
        let first = windowStart * bin
        let reference = received[first..<first + windowBins * bin]
        var best: (offset: Int, r: Double)?
        for offset in max(0, bestBin * bin - bin)...min(sent.count - reference.count, bestBin * bin + bin) {
            let r = Self.pearson(reference, sent[offset..<offset + reference.count])
            if best == nil || r > best?.r ?? -2 { best = (offset, r) }
        }
        guard let best, best.r.isFinite else { return nil }
        // Where received[0] sits in sent (negative when the playback began before the recording).
        self.init(offset: best.offset - first, correlation: best.r, compared: reference.count, envelopeCorrelation: bestScore)
    }

    /// RMS per `bin` samples.
    static func envelope(_ samples: [Int16], bin: Int) -> [Double] {
        stride(from: 0, to: samples.count - bin + 1, by: bin).map { start in
            var sum = 0.0
            for sample in samples[start..<start + bin] { sum += Double(sample) * Double(sample) }
            return (sum / Double(bin)).squareRoot()
        }
    }

    /// Pearson's correlation of two equally long runs of samples, in integer sums (exact, and no
    /// allocation per offset tried); 0 when either is constant.
    static func pearson(_ a: ArraySlice<Int16>, _ b: ArraySlice<Int16>) -> Double {
        guard a.count == b.count, a.count > 1 else { return 0 }
        var sumA = 0, sumB = 0, sumAA = 0, sumBB = 0, sumAB = 0
        var indexB = b.startIndex
        for x16 in a {
            let x = Int(x16), y = Int(b[indexB])
            indexB += 1
            sumA += x
            sumB += y
            sumAA += x * x
            sumBB += y * y
            sumAB += x * y
        }
        let n = Double(a.count)
        let covariance = Double(sumAB) - Double(sumA) * Double(sumB) / n
        let varianceA = Double(sumAA) - Double(sumA) * Double(sumA) / n
        let varianceB = Double(sumBB) - Double(sumB) * Double(sumB) / n
        guard varianceA > 0, varianceB > 0 else { return 0 }
        return covariance / (varianceA * varianceB).squareRoot()
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
