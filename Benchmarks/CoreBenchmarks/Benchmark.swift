import PreflightCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A throughput measurement: runs a body in batches for a fixed time on the calling thread (one
/// core) and reports operations per second, best of several rounds.
///
/// Rates are given per second of the thread's CPU time (what one core does) and per second of wall
/// time. On a shared virtual machine the two differ by the time the hypervisor gave the core to
/// someone else (steal time); the target is judged on CPU time, which that noise does not reach.
struct Benchmark {
    let name: String
    let unit: String
    let target: Double?

    /// Runs `body(batch)` repeatedly; `body` performs `batch` operations and returns a checksum
    /// that is folded into the result so the optimizer cannot drop the work.
    func run(rounds: Int, seconds: Double, batch: Int, _ body: (Int) -> Int) -> Result {
        let clock = ContinuousClock()
        var bestCPU = 0.0
        var bestWall = 0.0
        var checksum = 0
        _ = body(batch)  // warm caches and lazy statics
        for _ in 0..<rounds {
            var operations = 0
            let start = clock.now
            let cpuStart = Self.threadCPUSeconds()
            var elapsed = Duration.zero
            while elapsed < .seconds(seconds) {
                checksum &+= body(batch)
                operations += batch
                elapsed = clock.now - start
            }
            let cpu = Self.threadCPUSeconds() - cpuStart
            bestWall = max(bestWall, Double(operations) / elapsed.inSeconds)
            if cpu > 0 { bestCPU = max(bestCPU, Double(operations) / cpu) }
        }
        return Result(name: name, unit: unit, rate: bestCPU, wallRate: bestWall, target: target, checksum: checksum)
    }

    /// CPU time this thread has used, seconds.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    struct Result {
        let name: String
        let unit: String
        /// Operations per CPU-second of the benchmark thread.
        let rate: Double
        /// Operations per wall-clock second.
        let wallRate: Double
        let target: Double?
        let checksum: Int

        var meetsTarget: Bool { target.map { rate >= $0 } ?? true }

        var line: String {
            let verdict = target.map { " (target \(Self.grouped(Int($0))): \(rate >= $0 ? "met" : "MISSED"))" } ?? ""
            return "\(name): \(Self.grouped(Int(rate.rounded()))) \(unit) per CPU-second\(verdict); "
                + "\(Self.grouped(Int(wallRate.rounded()))) per wall second  [checksum \(checksum & 0xFFFF)]"
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
