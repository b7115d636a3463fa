import Foundation
import PreflightCore
import Testing

@Suite struct ReportModelTests {
    static func fixture() throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "example-report", withExtension: "json", subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    @Test func exampleReportDecodes() throws {
        let report = try PreflightReport(jsonData: Self.fixture())
        #expect(report.edge == "US_WEST_OREGON")
        #expect(report.selectedEdge == "roaming")
        #expect(report.callQuality == .excellent)
        #expect(report.isTurnRequired == true)
        #expect(report.iceCandidates.count == 2)
        #expect(report.iceCandidates[1].url == "turn:global.turn.twilio.com:443?transport=tcp")
        let pair = try #require(report.selectedIceCandidatePair)
        #expect(pair.localCandidate.candidateType == .relay)
        #expect(pair.remoteCandidate.candidateType.rawValue == "local")
        #expect(pair.usesRelay)
        #expect(report.statsSamples.count == 2)
        let sample = report.statsSamples[1]
        #expect(sample.timestamp == 1_731_699_140_337.642090)
        #expect(sample.rtt == 34 && sample.jitter == 1 && sample.codec == "PCMU")
        #expect(sample.packetsReceived == 1048 && sample.bytesSent == 164_160)
        #expect(report.networkStats.rtt.max == 40)
        #expect(report.warnings == [
            WarningRecord(name: "constant-audio-input-level", values: "0.305590", threshold: "1.000000", timestamp: 1_731_699_128_298)
        ])
        #expect(report.warningsCleared == [ClearedWarningRecord(name: "constant-audio-output-level", timestamp: 1_731_699_132_313)])
        #expect(report.networkTiming.preflightTest?.duration == 24038)
        #expect(report.networkTiming.signaling == TimingMeasurement(startTime: 1_731_699_117_268, endTime: 1_731_699_117_884))
    }

    @Test func exampleReportReencodesToAnEqualJSONValue() throws {
        let original = try Self.fixture()
        let report = try PreflightReport(jsonData: original)
        let reencoded = try report.jsonData()
        let differences = try JSONValue.parse(reencoded).differences(from: JSONValue.parse(original))
        #expect(differences.isEmpty, "\(differences)")
        // The types that the reference report writes as strings stay strings.
        let value = try JSONValue.parse(reencoded)
        #expect(value["isTurnRequired"] == .string("true"))
        guard case .array(let samples)? = value["statsSamples"] else {
            Issue.record("statsSamples is not an array")
            return
        }
        #expect(samples[1]["timestamp"] == .string("1731699140337.642090"))
    }

    @Test func emptyReportOmitsWhatDidNotHappen() throws {
        let value = try JSONValue.parse(PreflightReport().jsonData())
        #expect(value["isTurnRequired"] == nil)
        #expect(value["callQuality"] == nil)
        #expect(value["selectedIceCandidatePair"] == nil)
        #expect(value["networkTiming"] == .object([:]))
        #expect(value["statsSamples"] == .array([]))
        // And it decodes back to the empty report.
        #expect(try PreflightReport(jsonData: PreflightReport().jsonData()) == PreflightReport())
    }

    @Test(arguments: [
        (#"{"isTurnRequired":"false"}"#, false as Bool?),
        (#"{"isTurnRequired":true}"#, true),
        (#"{}"#, nil),
    ])
    func isTurnRequiredForms(json: String, expected: Bool?) throws {
        #expect(try PreflightReport(jsonData: Data(json.utf8)).isTurnRequired == expected)
    }

    @Test(arguments: [
        #"{"isTurnRequired":"yes"}"#,
        #"{"statsSamples":[{"timestamp":"soon"}]}"#,
        #"{"callQuality":"excellent"}"#,
        #"[1,2]"#,
        #"{"networkStats":{"rtt":{"average":"x"}}}"#,
    ])
    func malformedReportsThrowMalformed(json: String) {
        #expect {
            _ = try PreflightReport(jsonData: Data(json.utf8))
        } throws: { error in
            (error as? PreflightError)?.code == .malformed
        }
    }

    @Test func samplesDeriveNetworkStatsAndCallQuality() {
        var report = PreflightReport()
        report.setSamples([
            StatsSample(timestamp: 1000, rtt: 20, jitter: 2, mos: 4.40),
            StatsSample(timestamp: 2000, rtt: 40, jitter: 6, mos: 4.30),
            StatsSample(timestamp: 3000, rtt: 30, jitter: 1, mos: 4.20),
        ])
        #expect(report.networkStats.rtt == MetricStats(average: 30, min: 20, max: 40))
        #expect(report.networkStats.jitter == MetricStats(average: 3, min: 1, max: 6))
        #expect(abs(report.networkStats.mos.average - 4.30) < 1e-12)
        #expect(report.callQuality == .excellent)  // average 4.30 > 4.2
        report.setSamples([])
        #expect(report.callQuality == nil)
        #expect(report.networkStats == NetworkStats())
    }

    @Test func metricStatsSkipsNonFiniteValues() {
        #expect(MetricStats([1, .nan, 3, .infinity]) == MetricStats(average: 2, min: 1, max: 3))
        #expect(MetricStats([Double]()) == MetricStats())
    }

    @Test func sampleTimestampKeepsSixDecimals() throws {
        let sample = StatsSample(timestamp: 1_731_699_119_243.266113, codec: "PCMU")
        let value = try JSONValue.parse(JSONEncoder().encode(sample))
        #expect(value["timestamp"] == .string("1731699119243.266113"))
        #expect(try JSONDecoder().decode(StatsSample.self, from: JSONEncoder().encode(sample)) == sample)
    }
}
