import Foundation
import PreflightCore
import PreflightTesting
import Testing

/// The lab's Python copies of the MOS formula, the callQuality bands and the warning rules
/// (`scripts/labkit/truth.py`, `bench.py`: the accuracy benchmark's expected verdicts) against the
/// Swift definitions they copy: ``MeanOpinionScore``, ``CallQuality`` and ``WarningsEngine``.
/// A change on either side that the other does not follow fails here.
// Needs python3: skipped without it outside CI, fails without it under CI=true (ExternalTool).
@Suite(.enabled(if: ExternalTool.canRun(needing: "python3"), "needs python3 on PATH (apt-get install python3)"))
struct LabScriptParityTests {
    /// What the Python side is asked: MOS inputs, MOS values to band, series of seconds to warn on.
    struct Query: Encodable {
        var mos: [[Double]] = []
        var quality: [Double] = []
        var series: [[[Double]]] = []
    }

    /// The Python side's answers, in the order of the query.
    struct Answer: Decodable {
        var mos: [Double]
        var quality: [String]
        var edges: [Double]
        var warnings: [[String]]
    }

    /// Imports the lab's modules as the benchmark does and answers a ``Query`` on standard output.
    static let script = """
        import json, sys
        from labkit import bench as B, truth as T
        q = json.load(sys.stdin)
        json.dump({
            "mos": [T.mos(rtt, jitter, loss) for rtt, jitter, loss in q["mos"]],
            "quality": [T.call_quality(m) for m in q["quality"]],
            "edges": list(B.QUALITY_EDGES),
            "warnings": [sorted(T.warnings_raised([{"rtt": r, "jitter": j, "loss": l} for r, j, l in s]))
                         for s in q["series"]],
        }, sys.stdout)
        """

    /// The repository's `scripts` directory, from this file's path.
    static var scriptsDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts").path
    }

    static func ask(_ query: Query) async throws -> Answer {
        let input = try JSONEncoder().encode(query)
        let output = try await ExternalTool.run(
            "python3", ["-c", script], standardInput: Array(input), environment: ["PYTHONPATH": scriptsDirectory])
        return try JSONDecoder().decode(Answer.self, from: Data(output.utf8))
    }

    @Test func mosAgreesOnAGridOfRTTJitterAndLoss() async throws {
        // Both branches of R, eL = 160 exactly (rtt 150), eL ≥ 1000, loss up to and past R/2.5.
        let rtts: [Double] = [0, 20, 100, 149, 150, 151, 200, 400, 800, 989, 990, 1000, 2500]
        let jitters: [Double] = [0, 1, 5, 30, 100]
        let losses: [Double] = [0, 0.5, 1, 3, 10, 30, 37.1, 50, 100]
        var query = Query()
        for rtt in rtts {
            for jitter in jitters {
                for loss in losses { query.mos.append([rtt, jitter, loss]) }
            }
        }
        let answer = try await Self.ask(query)
        try #require(answer.mos.count == query.mos.count)
        for (input, python) in zip(query.mos, answer.mos) {
            let swift = MeanOpinionScore.mos(rtt: input[0], jitter: input[1], packetLossPercent: input[2])
            #expect(abs(swift - python) <= 1e-12, "rtt \(input[0]) jitter \(input[1]) loss \(input[2]): Swift \(swift), Python \(python)")
        }
    }

    /// The band of `mos` by its case name, as the Python side names it.
    static func band(_ mos: Double) -> String {
        CallQuality(averageMOS: mos).map { "\($0)" } ?? "none"
    }

    @Test func callQualityBandsAgreeAroundEveryEdge() async throws {
        var query = Query()
        query.quality = stride(from: 1.0, through: 4.5, by: 0.01).map { $0 }
        for edge in [3.0, 3.1, 3.6, 3.7, 4.0, 4.1, 4.2] {
            query.quality += [edge.nextDown, edge, edge.nextUp]
        }
        let answer = try await Self.ask(query)
        try #require(answer.quality.count == query.quality.count)
        for (mos, python) in zip(query.quality, answer.quality) {
            #expect(Self.band(mos) == python, "MOS \(mos)")
        }
    }

    @Test func benchQualityEdgesAreTheSwiftBandEdges() async throws {
        // Every MOS at which CallQuality changes, found by bisection between 1 and 4.5.
        var swiftEdges: [Double] = []
        let grid = stride(from: 1.0, through: 4.5, by: 0.05).map { $0 }
        for (low, high) in zip(grid, grid.dropFirst()) where Self.band(low) != Self.band(high) {
            var (below, above) = (low, high)
            while above - below > 1e-9 {
                let middle = (below + above) / 2
                if Self.band(middle) == Self.band(low) { below = middle } else { above = middle }
            }
            swiftEdges.append((above * 1e6).rounded() / 1e6)
        }
        #expect(swiftEdges.count == CallQuality.allCases.count - 1)
        let answer = try await Self.ask(Query())
        #expect(answer.edges.sorted() == swiftEdges.sorted())
    }

    @Test func warningRulesAgreeOnSeriesAroundTheThresholds() async throws {
        // Values below, at and above each threshold (400 ms, 30 ms, MOS 3.5 through RTT and loss,
        // 3 % and 1 % loss), in random series of 4 to 12 seconds from a fixed seed. Loss values are
        // halves so both sides' averages are exact.
        let rtts: [Double] = [20, 350, 399, 400, 401, 600]
        let jitters: [Double] = [1, 29, 30, 31, 45]
        let losses: [Double] = [0, 0.5, 1, 2.5, 3, 3.5, 6, 12]
        var random = SplitMix64(seed: 12)
        var query = Query()
        for _ in 0..<400 {
            let length = Int.random(in: 4...12, using: &random)
            query.series.append((0..<length).map { _ in
                [rtts.randomElement(using: &random) ?? 0, jitters.randomElement(using: &random) ?? 0,
                 losses.randomElement(using: &random) ?? 0]
            })
        }
        let answer = try await Self.ask(query)
        try #require(answer.warnings.count == query.series.count)
        let audio: Set<QualityWarning> = [.constantAudioInputLevel, .constantAudioOutputLevel]
        var raisedSomewhere: Set<String> = []
        for (series, python) in zip(query.series, answer.warnings) {
            var engine = WarningsEngine()
            for (index, second) in series.enumerated() {
                let (rtt, jitter, loss) = (second[0], second[1], second[2])
                _ = engine.ingest(StatsSample(
                    timestamp: Double(index) * 1000, rtt: rtt, jitter: jitter,
                    mos: MeanOpinionScore.mos(rtt: rtt, jitter: jitter, packetLossPercent: loss), packetsLostFraction: loss,
                    // Levels that vary (standard deviation 1000 > 983.01): no audio warning.
                    audioInputLevel: index % 2 * 2000, audioOutputLevel: index % 2 * 2000))
            }
            let swift = Set(engine.raisedRecords.map(\.name)).subtracting(audio.map(\.rawValue))
            raisedSomewhere.formUnion(swift)
            #expect(swift.sorted() == python, "series \(series)")
        }
        // The series reach every network warning, so each rule was compared.
        #expect(raisedSomewhere.count == QualityWarning.allCases.count - audio.count)
    }
}
