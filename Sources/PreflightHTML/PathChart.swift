import Foundation
import PreflightModel

/// The report page's path diagnosis: the verdict in plain words, a hop chart (each hop's median
/// round trip with its 95th percentile, and its unanswered probes, over the bands of the segments,
/// the blamed one marked) and a table of the hops. Everything from the report is hostile: values
/// are escaped, non-finite numbers drawn as nothing, and at most 64 hops shown.
struct PathChart {
    var diagnosis: PathDiagnosis

    static let width = 720.0
    static let height = 220.0
    static let left = 48.0
    static let right = 48.0
    static let top = 40.0
    static let bottom = 30.0
    static let maximumHops = 64

    /// The section.
    func render() -> String {
        var html = "<h2>Path to the edge</h2>\n<section class=\"card\" id=\"path\" data-blamed=\""
            + HTMLText.escape(diagnosis.blames.map { "\($0.problem.rawValue)@\($0.segment.rawValue)" }.joined(separator: " ")) + "\">"
        html += "<p id=\"path-summary\">\(HTMLText.escape(diagnosis.summary))</p>"
        if let error = diagnosis.error {
            html += "<p class=\"muted\">Not probed: error \(error.code): \(HTMLText.escape(error.message))</p></section>\n"
            return html
        }
        let share = diagnosis.probeSharePercent.map { HTMLText.number($0, 1) + " %" } ?? "–"
        html += "<p class=\"muted\">To \(HTMLText.escape(diagnosis.destination)): \(diagnosis.probesSent) probes (\(share) of the test's "
            + "\(diagnosis.testPackets) packets), \(diagnosis.answersReceived) answers.</p>"
        html += chart() + table() + "</section>\n"
        return html
    }

    private var hops: [PathHop] { Array(diagnosis.hops.prefix(Self.maximumHops)) }

    func chart() -> String {
        let hops = self.hops
        guard !hops.isEmpty else { return "" }
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let slot = plotWidth / Double(hops.count)
        let rtts = hops.flatMap { [$0.rttMedian, $0.rttP95] }.compactMap { $0 }.filter(\.isFinite)
        let maxRTT = max(rtts.max() ?? 1, 1) * 1.1
        func x(_ index: Int) -> Double { Self.left + (Double(index) + 0.5) * slot }
        func yRTT(_ value: Double) -> Double { Self.top + (1 - min(max(value, 0), maxRTT) / maxRTT) * plotHeight }
        func yLoss(_ percent: Double) -> Double { Self.top + (1 - min(max(percent, 0), 100) / 100) * plotHeight }
        let blamed = Set(diagnosis.blames.map(\.segment))
        var svg = """
            <svg class="chart path-chart" data-hops="\(hops.count)" viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" width="\(Int(Self.width))" \
            height="\(Int(Self.height))" role="img" aria-label="Round trip and unanswered probes by hop" xmlns="http://www.w3.org/2000/svg">
            <title>Round trip and unanswered probes by hop</title>
            <text x="\(Self.left)" y="14" font-size="13" font-weight="600">Round trip by hop (ms; bar: median, line: p95) and probes unanswered (%, dots)</text>

            """
        // The segments' bands, the blamed one in red.
        for segment in diagnosis.segments {
            let first = hops.firstIndex { $0.ttl == segment.firstHop }, last = hops.lastIndex { $0.ttl == segment.lastHop }
            guard let first, let last, first <= last else { continue }
            let isBlamed = blamed.contains(segment.kind)
            let x0 = Self.left + Double(first) * slot, width = Double(last - first + 1) * slot
            svg += """
                <rect class="segment\(isBlamed ? " blamed" : "")" data-segment="\(segment.kind.rawValue)" x="\(HTMLText.number(x0, 1))" y="\(Self.top - 16)" \
                width="\(HTMLText.number(width, 1))" height="\(HTMLText.number(plotHeight + 16, 1))" fill="\(isBlamed ? "#fde7e7" : (first % 2 == 0 ? "#f3f5f9" : "#e9edf4"))"/>
                <text x="\(HTMLText.number(x0 + 4, 1))" y="\(Self.top - 4)" font-size="11" fill="\(isBlamed ? "#c62828" : "#5b6475")">\(HTMLText.escape(segment.name, limit: 60))\(isBlamed ? " (blamed)" : "")</text>

                """
        }
        svg += """
            <line x1="\(Self.left)" y1="\(Self.top + plotHeight)" x2="\(Self.width - Self.right)" y2="\(Self.top + plotHeight)" stroke="#999"/>
            <text x="\(Self.left - 4)" y="\(Self.top + 4)" font-size="10" text-anchor="end">\(HTMLText.number(maxRTT, maxRTT < 10 ? 1 : 0))</text>
            <text x="\(Self.width - Self.right + 4)" y="\(Self.top + 4)" font-size="10">100 %</text>

            """
        for (index, hop) in hops.enumerated() {
            let center = x(index)
            let label = hop.address ?? "*"
            if let median = hop.rttMedian, median.isFinite {
                svg += "<rect class=\"rtt\" data-ttl=\"\(hop.ttl)\" x=\"\(HTMLText.number(center - slot * 0.2, 1))\" y=\"\(HTMLText.number(yRTT(median), 1))\" "
                    + "width=\"\(HTMLText.number(slot * 0.4, 1))\" height=\"\(HTMLText.number(Self.top + plotHeight - yRTT(median), 1))\" fill=\"#1a5fb4\">"
                    + "<title>hop \(hop.ttl): median \(HTMLText.number(median, 1)) ms</title></rect>\n"
            }
            if let p95 = hop.rttP95, p95.isFinite {
                svg += "<line class=\"p95\" x1=\"\(HTMLText.number(center - slot * 0.2, 1))\" x2=\"\(HTMLText.number(center + slot * 0.2, 1))\" "
                    + "y1=\"\(HTMLText.number(yRTT(p95), 1))\" y2=\"\(HTMLText.number(yRTT(p95), 1))\" stroke=\"#0b2e59\" stroke-width=\"2\"/>\n"
            }
            let lossColour = hop.note == .rateLimitsReplies ? "#999" : "#e65100"
            svg += "<circle class=\"loss\" data-ttl=\"\(hop.ttl)\" data-loss=\"\(HTMLText.number(hop.lossPercent, 1))\" cx=\"\(HTMLText.number(center, 1))\" "
                + "cy=\"\(HTMLText.number(yLoss(hop.lossPercent), 1))\" r=\"4\" fill=\"\(lossColour)\"><title>hop \(hop.ttl): "
                + "\(HTMLText.number(hop.lossPercent, 0)) % unanswered\(hop.note.map { " (\($0.rawValue))" } ?? "")</title></circle>\n"
            svg += "<text x=\"\(HTMLText.number(center, 1))\" y=\"\(HTMLText.number(Self.height - 16, 1))\" font-size=\"10\" text-anchor=\"middle\">\(hop.ttl)</text>"
                + "<text x=\"\(HTMLText.number(center, 1))\" y=\"\(HTMLText.number(Self.height - 4, 1))\" font-size=\"9\" text-anchor=\"middle\" fill=\"#5b6475\">"
                + "\(HTMLText.escape(label, limit: 40))</text>\n"
        }
        return svg + "</svg>\n"
    }

    func table() -> String {
        var html = "<table id=\"path-hops\"><tr><th>hop</th><th>address</th><th>segment</th><th>sent</th><th>unanswered</th>"
            + "<th>RTT min / median / p95 (ms)</th><th>jitter (ms)</th><th>note</th></tr>"
        for hop in hops {
            let rtt = [hop.rttMin, hop.rttMedian, hop.rttP95].map { $0.map { HTMLText.number($0, 1) } ?? "–" }.joined(separator: " / ")
            html += "<tr data-ttl=\"\(hop.ttl)\"><td>\(hop.ttl)</td><td>\(HTMLText.escape(hop.address ?? "*", limit: 60))</td>"
                + "<td>\(HTMLText.escape(hop.segment.rawValue))</td><td>\(hop.sent)</td><td>\(HTMLText.number(hop.lossPercent, 0)) %</td>"
                + "<td>\(rtt)</td><td>\(hop.jitter.map { HTMLText.number($0, 1) } ?? "–")</td><td>\(HTMLText.escape(hop.note?.rawValue ?? ""))</td></tr>"
        }
        return html + "</table>"
    }
}
