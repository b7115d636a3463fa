import PreflightCore
import Testing

/// A pre-call diagnosis's jitter and RTT are in seconds, as Telnyx reports them, summarised from
/// the samples' milliseconds: the conversion checked without a call, so that the end-to-end
/// tests need not tell seconds from milliseconds by how fast a loaded host's loopback is.
@Suite struct MetricSummaryTests {
    @Test func millisecondsBecomeSecondsOverTheFiniteValues() {
        #expect(MetricSummary(milliseconds: [6, 2, .nan, 4, .infinity]) == MetricSummary(min: 0.002, max: 0.006, avg: 0.004))
    }

    @Test func noFiniteValueIsAllZero() {
        #expect(MetricSummary(milliseconds: [Double.nan]) == MetricSummary(min: 0, max: 0, avg: 0))
        #expect(MetricSummary(milliseconds: [Double]()) == MetricSummary(min: 0, max: 0, avg: 0))
    }
}
