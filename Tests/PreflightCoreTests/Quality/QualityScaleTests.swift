import Foundation
import PreflightCore
import Testing

@Suite struct CallQualityTests {
    @Test(arguments: [
        (4.5, CallQuality.excellent), (4.2001, .excellent), (4.2, .great), (4.1999, .great),
        (4.1, .great), (4.0999, .good), (4.05, .good), (3.7, .good), (3.6999, .fair),
        (3.65, .fair), (3.1, .fair), (3.0999, .degraded), (3.05, .degraded), (1.0, .degraded),
        (-2.0, .degraded),
    ])
    func bands(mos: Double, expected: CallQuality) {
        #expect(CallQuality(averageMOS: mos) == expected)
    }

    @Test func nanHasNoBandAndCodableIsInt() throws {
        #expect(CallQuality(averageMOS: .nan) == nil)
        let data = try JSONEncoder().encode([CallQuality.good])
        #expect(String(decoding: data, as: UTF8.self) == "[2]")
        #expect(try JSONDecoder().decode([CallQuality].self, from: Data("[4]".utf8)) == [.degraded])
    }
}

@Suite struct QualityCategoryTests {
    @Test(arguments: [
        (5.0, QualityCategory.excellent), (4.0001, .excellent), (4.0, .excellent), (3.9999, .good),
        (3.0, .good), (2.9999, .fair), (2.0, .fair), (1.9999, .poor), (1.0, .poor),
    ])
    func bands(mos: Double, expected: QualityCategory) {
        #expect(QualityCategory(mos: mos) == expected)
    }

    @Test func unknown() {
        #expect(QualityCategory(mos: nil) == .unknown)
        #expect(QualityCategory(mos: .nan) == .unknown)
        #expect(QualityCategory.excellent.rawValue == "excellent")
    }
}

@Suite struct MetricRatingTests {
    @Test(arguments: [
        (-1.0, MetricRating.excellent), (0.0, .excellent), (19.99, .excellent), (20.0, .good),
        (50.0, .good), (50.01, .fair), (100.0, .fair), (100.01, .poor),
    ])
    func jitter(ms: Double, expected: MetricRating) {
        #expect(MetricRating(jitterMilliseconds: ms) == expected)
    }

    @Test(arguments: [
        (99.99, MetricRating.excellent), (100.0, .good), (200.0, .good), (200.01, .fair),
        (400.0, .fair), (400.01, .poor),
    ])
    func rtt(ms: Double, expected: MetricRating) {
        #expect(MetricRating(rttMilliseconds: ms) == expected)
    }

    @Test(arguments: [
        (0.99, MetricRating.excellent), (1.0, .good), (3.0, .good), (3.01, .fair), (5.0, .fair),
        (5.01, .poor),
    ])
    func loss(percent: Double, expected: MetricRating) {
        #expect(MetricRating(packetLossPercent: percent) == expected)
    }

    @Test func nanHasNoRating() {
        #expect(MetricRating(jitterMilliseconds: .nan) == nil)
        #expect(MetricRating(rttMilliseconds: .nan) == nil)
        #expect(MetricRating(packetLossPercent: .nan) == nil)
    }
}

@Suite struct NetworkQualityTests {
    @Test(arguments: [
        (4.5, NetworkQuality.excellent), (4.2, .excellent), (4.1999, .good), (4.0, .good),
        (3.9999, .poor), (3.6, .poor), (3.5999, .bad), (3.1, .bad), (3.0999, .veryBad),
        (1.0, .veryBad), (Double.nan, .unknown),
    ])
    func mosBands(mos: Double, expected: NetworkQuality) {
        #expect(NetworkQuality(mos: mos) == expected)
    }

    /// (rtt ms, jitter ms, loss %, expected). MOS by hand where it matters:
    /// rtt 200: eL 210, R 85.768, MOS 4.22 (excellent band) → capped good (RTT good band);
    /// rtt 400: eL 410, R 65.768, MOS 3.39 → bad; jitter 50: eL 110, MOS 4.38;
    /// jitter 100: eL 210, MOS 4.22; loss 3: R 87.018, MOS 4.26; loss 5: R 82.018, MOS 4.10;
    /// rtt 600: eL 610, R 45.768, MOS 2.35 → veryBad.
    @Test(arguments: [
        (0.0, 0.0, 0.0, NetworkQuality.excellent),
        (99.99, 0.0, 0.0, .excellent), (100.0, 0.0, 0.0, .good), (200.0, 0.0, 0.0, .good),
        (200.01, 0.0, 0.0, .poor), (400.0, 0.0, 0.0, .bad), (400.01, 0.0, 0.0, .bad),
        (0.0, 19.99, 0.0, .excellent), (0.0, 20.0, 0.0, .good), (0.0, 50.0, 0.0, .good),
        (0.0, 50.01, 0.0, .poor), (0.0, 100.0, 0.0, .poor), (0.0, 100.01, 0.0, .bad),
        (0.0, 0.0, 0.99, .excellent), (0.0, 0.0, 1.0, .good), (0.0, 0.0, 3.0, .good),
        (0.0, 0.0, 3.01, .poor), (0.0, 0.0, 5.0, .poor), (0.0, 0.0, 5.01, .bad),
        (600.0, 0.0, 0.0, .veryBad),
        (Double.nan, 0.0, 0.0, .unknown),
    ])
    func window(rtt: Double, jitter: Double, loss: Double, expected: NetworkQuality) {
        #expect(NetworkQuality(rtt: rtt, jitter: jitter, packetLossPercent: loss, packetsReceived: 50) == expected)
    }

    @Test func nothingReceivedIsDown() {
        #expect(NetworkQuality(rtt: 0, jitter: 0, packetLossPercent: 0, packetsReceived: 0) == .down)
        #expect(NetworkQuality(rtt: .nan, jitter: 0, packetLossPercent: 100, packetsReceived: -1) == .down)
        #expect(NetworkQuality.detecting.rawValue == 8 && NetworkQuality.down.rawValue == 6)
        #expect(NetworkQuality.unsupported.rawValue == 7 && NetworkQuality.veryBad.rawValue == 5)
    }
}

@Suite struct ConnectionQualityScoreTests {
    @Test(arguments: [
        (0.5, 0.0), (1.0, 0.0), (2.75, 2.5), (4.41, 3.41 / 3.5 * 5), (4.5, 5.0), (4.6, 5.0),
    ])
    func linear(mos: Double, expected: Double) {
        #expect((ConnectionQualityScore(mos: mos).value - expected).magnitude < 1e-12)
    }

    @Test func noDataAndCodable() throws {
        #expect(ConnectionQualityScore(mos: nil) == .noData)
        #expect(ConnectionQualityScore(mos: .nan).value == 0)
        #expect(ConnectionQualityScore.noData.value == 0)
        let data = try JSONEncoder().encode([ConnectionQualityScore(mos: 2.75)])
        #expect(String(decoding: data, as: UTF8.self) == "[2.5]")
        let decoded = try JSONDecoder().decode([ConnectionQualityScore].self, from: Data("[7]".utf8))
        #expect(decoded.first?.value == 5)
        #expect(ConnectionQualityScore(mos: 2) < ConnectionQualityScore(mos: 3))
    }
}
