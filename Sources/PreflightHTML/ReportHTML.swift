import Foundation
import PreflightModel

/// A self-contained HTML page for one preflight test (`preflight run --html`, the edge's
/// `/reports/{callSid}`): the verdict in plain words, the key figures, a chart per second of RTT,
/// jitter, loss and MOS with the warning thresholds and the seconds warnings were raised and
/// cleared, the path to the edge when the test diagnosed it (``PathChart``), the ICE candidates and pairs, the timeline, and the report's JSON. No external asset
/// and no script: every value from the report is escaped.
public enum ReportHTML {
    /// The page of `report`.
    public static func render(_ report: PreflightReport) -> String {
        let verdict = ReportVerdict(report)
        let title = "Preflight test \(report.callSid.isEmpty ? "(no call)" : report.callSid)"
        var html = PageStyle.head(title)
        html += "<h1>\(HTMLText.escape(title))</h1>\n"
        html += "<p class=\"muted\">Edge \(HTMLText.escape(report.edge)) · selected \(HTMLText.escape(report.selectedEdge))"
        if let started = report.networkTiming.preflightTest?.startTime { html += " · \(HTMLText.escape(Self.time(started)))" }
        html += "</p>\n"
        html += "<section class=\"card verdict \(verdict.level.rawValue)\" id=\"verdict\" data-level=\"\(verdict.level.rawValue)\">"
        html += "<h2>\(HTMLText.escape(verdict.headline))</h2>"
        if verdict.advice.isEmpty {
            html += "<p>Nothing needs doing.</p>"
        } else {
            html += "<ul>" + verdict.advice.map { "<li>\(HTMLText.escape($0))</li>" }.joined() + "</ul>"
        }
        html += settlement(report)
        html += "</section>\n"
        html += figures(report)
        html += "<h2>Per second</h2>\n" + charts(report)
        if let path = report.pathDiagnosis { html += PathChart(diagnosis: path).render() }
        html += warningsTable(report)
        html += candidates(report)
        html += timeline(report)
        html += json(report)
        return html + PageStyle.tail
    }

    /// An adaptive test's end in plain words: when its verdict settled, or what it sits between.
    static func settlement(_ report: PreflightReport) -> String {
        guard let settlement = report.verdictSettlement else { return "" }
        let maximum = HTMLText.number(settlement.maximumSeconds, 0)
        if settlement.settled {
            let continued = settlement.continuedToSeconds.map { ", and the test went on to \(HTMLText.number($0, 0)) s" } ?? ""
            return "<p class=\"muted\" id=\"settlement\" data-settled=\"true\">Adaptive test: the verdict settled after "
                + "\(HTMLText.number(settlement.afterSeconds, 0)) s of its \(maximum) s maximum\(HTMLText.escape(continued)).</p>"
        }
        let words = settlement.unsettled?.summary ?? settlement.reason
        return "<p id=\"settlement\" data-settled=\"false\"><b>Not settled within the \(maximum) s maximum:</b> "
            + "\(HTMLText.escape(words)). The verdict above is the maximum's; so close to the line, another test could read the other way.</p>"
    }

    static func figures(_ report: PreflightReport) -> String {
        let stats = report.networkStats
        var items: [(String, String, String)] = [
            ("callQuality", "Call quality", report.callQuality.map { "\($0)" } ?? "–"),
            ("mos", "MOS (avg)", HTMLText.number(stats.mos.average, 2)),
            ("rtt", "RTT avg (ms)", HTMLText.number(stats.rtt.average, 1)),
            ("jitter", "Jitter avg (ms)", HTMLText.number(stats.jitter.average, 1)),
            ("turn", "TURN needed", report.isTurnRequired.map { $0 ? "yes" : "no" } ?? "–"),
        ]
        if let up = report.uplink { items.append(("uplinkLoss", "Uplink loss", HTMLText.number(up.packetsLostFraction, 2) + " %")) }
        if let down = report.downlink { items.append(("downlinkLoss", "Downlink loss", HTMLText.number(down.packetsLostFraction, 2) + " %")) }
        if let ice = report.networkTiming.iceConnection { items.append(("ice", "ICE (ms)", String(ice.duration))) }
        return "<section class=\"figures\" id=\"figures\">"
            + items.map { "<div class=\"figure\" data-figure=\"\($0.0)\"><span class=\"muted\">\($0.1)</span><b>\(HTMLText.escape($0.2))</b></div>" }.joined()
            + "</section>\n"
    }

    static func charts(_ report: PreflightReport) -> String {
        // In Double throughout: a hostile report's times may be anything finite.
        let start = report.networkTiming.preflightTest.map { Double($0.startTime) } ?? ((report.statsSamples.first?.timestamp ?? 1000) - 1000)
        func seconds(_ milliseconds: Double) -> Double { (milliseconds - start) / 1000 }
        func marks(_ name: String) -> ([Double], [Double]) {
            (report.warnings.filter { $0.name == name }.map { seconds(Double($0.timestamp)) },
             report.warningsCleared.filter { $0.name == name }.map { seconds(Double($0.timestamp)) })
        }
        let samples = report.statsSamples
        func series(_ value: (StatsSample) -> Double) -> [(Double, Double)] { samples.map { (seconds($0.timestamp), value($0)) } }
        let rtt = marks("high-rtt"), jitter = marks("high-jitter"), loss = marks("high-packets-lost-fraction"), mos = marks("low-mos")
        return [
            SVGChart(metric: "rtt", title: "Round-trip time (ms)", points: series(\.rtt), threshold: 400, thresholdLabel: "high-rtt > 400 ms",
                     raised: rtt.0, cleared: rtt.1),
            SVGChart(metric: "jitter", title: "Jitter (ms)", points: series(\.jitter), threshold: 30, thresholdLabel: "high-jitter > 30 ms",
                     raised: jitter.0, cleared: jitter.1),
            SVGChart(metric: "loss", title: "Packets lost (%)", points: series(\.packetsLostFraction), threshold: 3,
                     thresholdLabel: "high-packets-lost-fraction > 3 %", raised: loss.0, cleared: loss.1),
            SVGChart(metric: "mos", title: "MOS", points: series(\.mos), threshold: 3.5, thresholdLabel: "low-mos < 3.5", raised: mos.0,
                     cleared: mos.1, floor: 1),
        ].map { $0.render() }.joined()
    }

    static func warningsTable(_ report: PreflightReport) -> String {
        guard !report.warnings.isEmpty || !report.warningsCleared.isEmpty else {
            return "<h2>Warnings</h2><p id=\"warnings\">No quality warning was raised.</p>\n"
        }
        var rows = report.warnings.map { warning in
            (warning.timestamp, "<tr class=\"raised\"><td>\(HTMLText.escape(Self.time(warning.timestamp)))</td><td>raised</td><td>\(HTMLText.escape(warning.name))</td><td>\(HTMLText.escape(warning.values)) (threshold \(HTMLText.escape(warning.threshold)))</td></tr>")
        }
        rows += report.warningsCleared.map { cleared in
            (cleared.timestamp, "<tr class=\"cleared\"><td>\(HTMLText.escape(Self.time(cleared.timestamp)))</td><td>cleared</td><td>\(HTMLText.escape(cleared.name))</td><td></td></tr>")
        }
        return "<h2>Warnings</h2><table id=\"warnings\"><tr><th>time</th><th></th><th>warning</th><th>values</th></tr>"
            + rows.sorted { $0.0 < $1.0 }.map(\.1).joined() + "</table>\n"
    }

    static func candidates(_ report: PreflightReport) -> String {
        func row(_ candidate: ICECandidateStats) -> String {
            "<td>\(candidate.isRemote ? "edge" : "client")</td><td>\(HTMLText.escape(candidate.candidateType.rawValue))</td>"
                + "<td>\(HTMLText.escape(candidate.protocol))</td><td>\(HTMLText.escape(candidate.ip)):\(candidate.port)</td>"
                + "<td>\(HTMLText.escape(candidate.url))</td>"
        }
        var html = "<h2>ICE candidates</h2><table id=\"candidates\"><tr><th>side</th><th>type</th><th>protocol</th><th>address</th><th>server</th></tr>"
        html += report.iceCandidates.map { "<tr class=\"candidate\">\(row($0))</tr>" }.joined() + "</table>\n"
        if let selected = report.selectedIceCandidatePair {
            html += "<p id=\"selected-pair\">Selected pair: \(HTMLText.escape(selected.localCandidate.candidateType.rawValue)) "
                + "\(HTMLText.escape(selected.localCandidate.ip)):\(selected.localCandidate.port) → "
                + "\(HTMLText.escape(selected.remoteCandidate.candidateType.rawValue)) \(HTMLText.escape(selected.remoteCandidate.ip)):\(selected.remoteCandidate.port)</p>\n"
        }
        if !report.iceCandidatePairs.isEmpty {
            html += "<table id=\"pairs\"><tr><th>local</th><th>remote</th><th>state</th><th>nominated</th><th>checks sent / answered</th><th>RTT (s)</th></tr>"
            html += report.iceCandidatePairs.map { pair in
                "<tr class=\"pair\"><td>\(HTMLText.escape(pair.localCandidate.candidateType.rawValue)) \(HTMLText.escape(pair.localCandidate.ip)):\(pair.localCandidate.port)</td>"
                    + "<td>\(HTMLText.escape(pair.remoteCandidate.ip)):\(pair.remoteCandidate.port)</td><td>\(HTMLText.escape(pair.state))</td>"
                    + "<td>\(pair.nominated ? "yes" : "no")</td><td>\(pair.requestsSent) / \(pair.responsesReceived)</td>"
                    + "<td>\(pair.currentRoundTripTime.map { HTMLText.number($0, 4) } ?? "–")</td></tr>"
            }.joined() + "</table>\n"
        }
        return html
    }

    static func timeline(_ report: PreflightReport) -> String {
        guard !report.timeline.isEmpty else { return "" }
        return "<h2>Timeline</h2><table id=\"timeline\"><tr><th>time</th><th>group</th><th>state</th><th>detail</th></tr>"
            + report.timeline.map { event in
                "<tr class=\"event\"><td>\(HTMLText.escape(Self.time(event.timestamp)))</td><td>\(HTMLText.escape(event.group.rawValue))</td>"
                    + "<td>\(HTMLText.escape(event.name))</td><td>\(HTMLText.escape(event.detail ?? ""))</td></tr>"
            }.joined() + "</table>\n"
    }

    static func json(_ report: PreflightReport) -> String {
        let text = (try? report.jsonData()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "<h2>Report JSON</h2><details><summary>Show</summary><pre id=\"json\">\(HTMLText.escape(text, limit: 2_000_000))</pre></details>\n"
    }

    /// One format for every time on a page (a value type: no formatter made per row).
    static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// `2026-11-26T10:00:00.123Z` of ms since the epoch.
    static func time(_ milliseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(timeStyle)
    }
}
