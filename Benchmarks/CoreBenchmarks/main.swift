import Foundation

// Throughput benchmarks of PreflightCore, one core. Build in release mode:
//   swift run -c release preflight-bench [--quick]
// Prints one line per benchmark with its target; exits 1 if a target is missed in a full run.
let quick = CommandLine.arguments.contains("--quick")
// Other arguments select benchmarks whose name contains them (case-insensitive).
let filters = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("--") }.map { $0.lowercased() }
let rounds = quick ? 2 : 5
let seconds = quick ? 0.3 : 1.0

var results: [Benchmark.Result] = []
for benchmark in CoreBenchmarks.all
where filters.isEmpty || filters.contains(where: { benchmark.benchmark.name.lowercased().contains($0) }) {
    let result = benchmark.run(rounds: rounds, seconds: seconds)
    print(result.line)
    results.append(result)
}
if !quick && results.contains(where: { !$0.meetsTarget }) {
    print("a throughput target was missed")
    exit(1)
}
