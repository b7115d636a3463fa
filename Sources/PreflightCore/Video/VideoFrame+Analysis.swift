extension VideoFrame {
    /// The brightest luma value: a frame whose brightest pixel is at most 20 is black (testrtc's
    /// rule: no luma above 20).
    public var maximumLuma: UInt8 { luma.max() ?? 0 }

    /// Whether no pixel's luma is above `threshold` (20 by default).
    public func isBlack(threshold: UInt8 = 20) -> Bool { maximumLuma <= threshold }

    /// The structural similarity (SSIM, Wang et al. 2004) of this frame's luma and `other`'s, the
    /// mean over 8 × 8 windows (non-overlapping, the edges' partial windows left out), with the
    /// usual constants (K1 0.01, K2 0.03, L 255). 1 for identical frames; a frame is frozen when
    /// it is above 0.985 against the frame before. Frames of different sizes are 0.
    public func structuralSimilarity(to other: VideoFrame) -> Double {
        guard width == other.width, height == other.height, width >= 8, height >= 8 else {
            return width == other.width && height == other.height && luma == other.luma ? 1 : 0
        }
        let c1 = (0.01 * 255) * (0.01 * 255)
        let c2 = (0.03 * 255) * (0.03 * 255)
        var total = 0.0
        var windows = 0
        var y = 0
        while y + 8 <= height {
            var x = 0
            while x + 8 <= width {
                var sumA = 0, sumB = 0, sumAA = 0, sumBB = 0, sumAB = 0
                for row in y..<y + 8 {
                    let base = row * width
                    for column in x..<x + 8 {
                        let a = Int(luma[base + column])
                        let b = Int(other.luma[base + column])
                        sumA += a
                        sumB += b
                        sumAA += a * a
                        sumBB += b * b
                        sumAB += a * b
                    }
                }
                let n = 64.0
                let meanA = Double(sumA) / n
                let meanB = Double(sumB) / n
                let varianceA = Double(sumAA) / n - meanA * meanA
                let varianceB = Double(sumBB) / n - meanB * meanB
                let covariance = Double(sumAB) / n - meanA * meanB
                total +=
                    ((2 * meanA * meanB + c1) * (2 * covariance + c2))
                    / ((meanA * meanA + meanB * meanB + c1) * (varianceA + varianceB + c2))
                windows += 1
                x += 8
            }
            y += 8
        }
        return windows > 0 ? total / Double(windows) : 0
    }
}
