// Store throughput: reports written per second into each store the edge can use, one writer and
// eight at once, each report a preflight test's JSON of ten samples (about 2.6 KB).
//
//   swift run -c release preflight-store-bench [--reports N] [--postgres postgres://USER:PASSWORD@HOST/DB]
//   swift run -c release preflight-store-bench --eviction 100000,1000000 [--previous 1000,2000,4000]
//
// SQLite is measured in memory and in a file (WAL, synchronous=NORMAL: the edge's settings);
// PostgreSQL only when a URL is given (the database must exist; its tables are made).
import Foundation
import Logging
import PreflightCore
import PreflightEdge

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let total = Int(option("--reports") ?? "") ?? 2000
let logger: Logger = {
    var logger = Logger(label: "store-bench")
    logger.logLevel = .error
    return logger
}()

/// A report body of a 10-second test, as `PreflightReport.jsonData()` makes it.
func body(sid: String) -> String {
    var report = PreflightReport()
    report.callSid = sid
    report.edge = "ashburn"
    report.callQuality = .great
    report.statsSamples = (1...10).map { StatsSample(timestamp: Double(1_795_000_000_000 + $0 * 1000), rtt: 40, jitter: 1.5, mos: 4.3) }
    return (try? report.jsonData()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
}

func measure(_ name: String, _ location: StoreLocation, writers: Int) async throws {
    let store = ReportStore(location: location, logger: logger, memoryLimit: Int.max)
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await store.run() }
        try await store.waitUntilReady()
        let run = UUID().uuidString.prefix(8)
        let template = body(sid: "CAtemplate")
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { writersGroup in
            for writer in 0..<writers {
                writersGroup.addTask {
                    for index in stride(from: writer, to: total, by: writers) {
                        let sid = "CA\(run)\(index)"
                        let summary = ReportSummary(sid: sid, edge: "roaming", selectedEdge: "ashburn", callQuality: 1, isTurnRequired: false, mos: 4.3, rtt: 40, jitter: 1.5)
                        try await store.insert(StoredReport(
                            sid: sid, kind: .preflightTest, account: "AC1", identity: "user\(index % 50)", edge: "ashburn",
                            receivedAt: Int64(Date().timeIntervalSince1970 * 1000), summary: summary, body: template))
                    }
                }
            }
            try await writersGroup.waitForAll()
        }
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let listStart = ContinuousClock.now
        let page = try await store.reports(account: "AC1", filter: ReportFilter(identity: "user7"), pageSize: 50)
        let aggregates = try await store.aggregates(account: "AC1", filter: ReportFilter())
        let queries = listStart.duration(to: .now)
        let label = name.padding(toLength: 14, withPad: " ", startingAt: 0)
        let queryMilliseconds = Double(queries.components.seconds) * 1000 + Double(queries.components.attoseconds) / 1e15
        print(String(
            format: "%@ %d writer(s): %6d reports in %6.2f s = %8.0f reports/s (%6.0f KB/s of JSON); a filtered page (%d) and the aggregates (%d reports) in %.0f ms",
            label, writers, total, seconds, Double(total) / seconds, Double(total * template.utf8.count) / seconds / 1000,
            page.reports.count, aggregates.map(\.count).reduce(0, +), queryMilliseconds))
        group.cancelAll()
    }
}

if let sizes = option("--eviction") {
    // The eviction benchmark (Eviction.swift) instead of the throughput one.
    for rows in sizes.split(separator: ",").compactMap({ Int($0) }) {
        try await EvictionBenchmark.measure(rows: rows, logger: logger)
    }
    for rows in (option("--previous") ?? "1000,2000,4000").split(separator: ",").compactMap({ Int($0) }) {
        try await EvictionBenchmark.measurePrevious(rows: rows, logger: logger)
    }
    exit(0)
}

print("store throughput: \(total) preflight-test reports of \(body(sid: "CAx").utf8.count) bytes each")
let file = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-store-bench-\(UUID().uuidString).sqlite").path
defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
for writers in [1, 8] {
    try await measure("sqlite memory", .sqliteInMemory, writers: writers)
    try await measure("sqlite file", .sqlite(path: file), writers: writers)
    if let url = option("--postgres") {
        try await measure("postgresql", try StoreLocation(parsing: url), writers: writers)
    }
}
