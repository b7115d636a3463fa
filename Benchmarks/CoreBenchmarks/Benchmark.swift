/// A throughput measurement: runs a body in batches for a fixed wall-clock time on the calling
/// thread (one core) and reports operations per second, best of several rounds.
struct Benchmark {
    let name: String
    let unit: String
    let target: Double?

    /// Runs `body(batch)` repeatedly; `body` performs `batch` operations and returns a checksum
    /// that is folded into the result so the optimizer cannot drop the work.
    func run(rounds: Int, seconds: Double, batch: Int, _ body: (Int) -> Int) -> Result {
        let clock = ContinuousClock()
        var best = 0.0
        var checksum = 0
        _ = body(batch)  // warm caches and lazy statics
        for _ in 0..<rounds {
            var operations = 0
            let start = clock.now
            var elapsed = Duration.zero
            while elapsed < .seconds(seconds) {
                checksum &+= body(batch)
                operations += batch
                elapsed = clock.now - start
            }
            let (whole, attoseconds) = elapsed.components
            let rate = Double(operations) / (Double(whole) + Double(attoseconds) / 1e18)
            best = max(best, rate)
        }
        return Result(name: name, unit: unit, rate: best, target: target, checksum: checksum)
    }

    struct Result {
        let name: String
        let unit: String
        let rate: Double
        let target: Double?
        let checksum: Int

        var meetsTarget: Bool { target.map { rate >= $0 } ?? true }

        var line: String {
            let figure = Self.grouped(Int(rate.rounded()))
            let verdict = target.map { " (target \(Self.grouped(Int($0))): \(rate >= $0 ? "met" : "MISSED"))" } ?? ""
            return "\(name): \(figure) \(unit)\(verdict)  [checksum \(checksum & 0xFFFF)]"
        }

        static func grouped(_ value: Int) -> String {
            let digits = Array(String(value))
            var out = ""
            for (index, digit) in digits.enumerated() {
                if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
                out.append(digit)
            }
            return out
        }
    }
}
