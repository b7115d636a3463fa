/// The benchmarks `preflight-bench` runs.
enum CoreBenchmarks {
    static var all: [Runner] { [] }

    struct Runner {
        let benchmark: Benchmark
        let batch: Int
        let body: (Int) -> Int

        func run(rounds: Int, seconds: Double) -> Benchmark.Result {
            benchmark.run(rounds: rounds, seconds: seconds, batch: batch, body)
        }
    }
}
