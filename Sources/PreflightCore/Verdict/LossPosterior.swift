import Foundation

/// What `lost` of `trials` round trips say of the loss probability: a Beta posterior from
/// Jeffreys' prior (Beta(½, ½)), with the counts divided by a burst inflation so that bursty
/// loss, whose counts vary more than independent losses', is as uncertain as it is.
///
/// For a two-state (Gilbert) loss process with mean burst length b the variance of the loss
/// count is about 2b − 1 times the binomial one, so `trials` bursty packets weigh as
/// `trials / (2b − 1)` independent ones. Evaluated on a grid (finer near 0, where low loss
/// lives), which gives quantiles and expectations without special functions.
public struct LossPosterior: Sendable {
    /// Grid points p (loss probabilities, 0…1), ascending.
    public let points: [Double]
    /// The posterior probability of each grid point (summing to 1).
    public let weights: [Double]
    /// The burst inflation used (≥ 1).
    public let inflation: Double

    static let gridSize = 800

    /// - Parameters:
    ///   - lost: round trips lost.
    ///   - trials: round trips decided.
    ///   - meanLossRun: the mean length of a run of losses (1 for independent losses).
    public init(lost: Int, trials: Int, meanLossRun: Double) {
        inflation = max(1, 2 * meanLossRun - 1)
        let a = Double(max(0, lost)) / inflation + 0.5
        let b = Double(max(0, trials - lost)) / inflation + 0.5
        var points: [Double] = []
        var logWeights: [Double] = []
        points.reserveCapacity(Self.gridSize)
        logWeights.reserveCapacity(Self.gridSize)
        for index in 0..<Self.gridSize {
            // p = u², u uniform: dense where p is small. The Jacobian 2u enters the weight.
            let u = (Double(index) + 0.5) / Double(Self.gridSize)
            let p = min(u * u, 1 - 1e-12)
            points.append(p)
            logWeights.append((a - 1) * log(p) + (b - 1) * log1p(-p) + log(2 * u))
        }
        let top = logWeights.max() ?? 0
        let unnormalised = logWeights.map { exp($0 - top) }
        let total = unnormalised.reduce(0, +)
        self.points = points
        weights = unnormalised.map { $0 / total }
    }

    /// The `probability` quantile of the loss probability (0…1).
    public func quantile(_ probability: Double) -> Double {
        var cumulative = 0.0
        for (point, weight) in zip(points, weights) {
            cumulative += weight
            if cumulative >= probability { return point }
        }
        return points.last ?? 1
    }

    /// The posterior expectation of `function(p)`.
    public func expectation(_ function: (Double) -> Double) -> Double {
        zip(points, weights).reduce(0) { $0 + $1.1 * function($1.0) }
    }
}
