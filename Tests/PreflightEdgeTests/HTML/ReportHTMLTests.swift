import Foundation
import PreflightCore
@testable import PreflightHTML
import Testing

/// The report page and the dashboard as text: hostile values are escaped, the charts carry one
/// point per sample and one mark per warning, and the verdict follows the report.
@Suite struct ReportHTMLTests {
    static let hostile = #"<script>alert(1)</script>"><img src=x onerror=alert(2)>"#

    /// A report of `seconds` samples from t0, with the given warnings.
    static func report(seconds: Int = 6, quality: CallQuality? = .great, error: ReportError? = nil) -> PreflightReport {
        var report = PreflightReport()
        report.callSid = "CA0123"
        report.edge = Self.hostile
        report.callQuality = quality
        report.error = error
        let t0: Int64 = 1_795_000_000_000
        report.networkTiming.preflightTest = TimingMeasurement(startTime: t0, endTime: t0 + Int64(seconds) * 1000)
        report.statsSamples = (1...seconds).map { second in
            var sample = StatsSample(timestamp: Double(t0 + Int64(second) * 1000), rtt: Double(40 + second), jitter: 2, mos: 4.3)
            sample.packetsLostFraction = second > 3 ? 5 : 0
            return sample
        }
        let candidate = ICECandidateStats(candidateType: .host, priority: 1, ip: Self.hostile, isRemote: false, port: 5000)
        report.iceCandidates = [candidate, candidate]
        report.warnings = [WarningRecord(name: "high-packets-lost-fraction", values: Self.hostile, threshold: "3", timestamp: t0 + 5000)]
        report.warningsCleared = [ClearedWarningRecord(name: "high-packets-lost-fraction", timestamp: t0 + 6000)]
        return report
    }

    @Test func hostileValuesAreEscapedEverywhere() {
        let html = ReportHTML.render(Self.report(error: ReportError(code: 53405, message: Self.hostile)))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        let dashboard = DashboardHTML.render(
            edgeName: Self.hostile,
            rows: [ReportListItem(sid: "RP1", kind: .lastmileProbe, identity: Self.hostile, edge: Self.hostile, receivedAt: 0)],
            aggregates: [ReportAggregate(edge: Self.hostile, day: "2026-11-26", count: 1, mosMedian: nil, mosPercentile10: nil, turnShare: nil,
                               failuresByCode: [Self.hostile: 1])],
            filters: ["identity": Self.hostile], error: Self.hostile)
        #expect(!dashboard.contains("<script") && !dashboard.contains("<img"))
        #expect(HTMLText.escape("a\u{202E}b\u{0007}c") == "abc")
    }

    /// An adaptive test's end on the page: when it settled, or, escaped, what it sits between.
    @Test func anAdaptiveTestsEndIsSaidInPlainWords() {
        var report = Self.report()
        #expect(!ReportHTML.render(report).contains("id=\"settlement\""))
        report.verdictSettlement = VerdictSettlement(
            settled: true, afterSeconds: 3, maximumSeconds: 30, meanMOSLower: 4.3, meanMOSUpper: 4.4, roundTrips: 140, roundTripsLost: 0,
            warningsRaised: [], warningsRuledOut: QualityWarning.allCases, warningsUndecided: [], reason: "r", callQuality: .excellent,
            continuedToSeconds: 30)
        let settled = ReportHTML.render(report)
        #expect(settled.contains("data-settled=\"true\">Adaptive test: the verdict settled after 3 s of its 30 s maximum, and the test went on to 30 s."))
        report.verdictSettlement?.settled = false
        report.verdictSettlement?.unsettled = UnsettledVerdict(
            bands: [.excellent, .great], warnings: [], summary: "mean MOS 4.21 ± 0.03: between excellent and great " + Self.hostile)
        let open = ReportHTML.render(report)
        #expect(open.contains("<b>Not settled within the 30 s maximum:</b> mean MOS 4.21 ± 0.03: between excellent and great &lt;script&gt;"))
        #expect(!open.contains("<script"))
    }

    @Test func chartsHaveAPointPerSampleAThresholdAndTheWarningsMarks() {
        let html = ReportHTML.render(Self.report(seconds: 6))
        #expect(html.components(separatedBy: "<svg class=\"chart\"").count - 1 == 4)
        #expect(html.components(separatedBy: "data-points=\"6\"").count - 1 == 4)
        #expect(html.components(separatedBy: "class=\"threshold\"").count - 1 == 4)
        #expect(html.components(separatedBy: "class=\"mark raised\"").count - 1 == 1)
        #expect(html.components(separatedBy: "class=\"mark cleared\"").count - 1 == 1)
        // The raise is drawn at its second since the start.
        #expect(html.contains(#"class="mark raised" data-second="5.0""#))
        #expect(html.components(separatedBy: "<tr class=\"candidate\">").count - 1 == 2)
    }

    @Test(arguments: [
        (CallQuality.excellent, nil as Int?, ReportVerdict.Level.good),
        (.great, nil, .good), (.good, nil, .fair), (.fair, nil, .fair), (.degraded, nil, .bad), (.excellent, 53405, .bad),
    ])
    func theVerdictFollowsTheReport(_ quality: CallQuality, _ code: Int?, _ level: ReportVerdict.Level) {
        let verdict = ReportVerdict(Self.report(quality: quality, error: code.map { ReportError(code: $0, message: "m") }))
        #expect(verdict.level == level)
        // The loss warning always brings its advice; the ICE failure its own first.
        #expect(verdict.advice.contains { $0.contains("Packets are being lost") })
        if code == 53405 { #expect(verdict.advice.first?.contains("UDP") == true) }
    }

    @Test func turnUseIsExplained() {
        var report = Self.report()
        report.isTurnRequired = true
        #expect(ReportVerdict(report).advice.contains { $0.contains("TURN relay") })
    }
}
