import Foundation

// Throughput benchmarks of PreflightCore, one core. Build in release mode:
//   swift run -c release preflight-bench [--quick]
// Prints one line per benchmark with its target; exits 1 if a target is missed in a full run.
let quick = CommandLine.arguments.contains("--quick")
let rounds = quick ? 2 : 5
let seconds = quick ? 0.3 : 1.0

var results: [Benchmark.Result] = []
for benchmark in CoreBenchmarks.all {
    let result = benchmark.run(rounds: rounds, seconds: seconds)
    print(result.line)
    results.append(result)
}
if !quick && results.contains(where: { !$0.meetsTarget }) {
    print("a throughput target was missed")
    exit(1)
}
