/// A per-second line chart as inline SVG: the series, its warning threshold (dashed) and the
/// seconds a warning was raised or cleared (vertical marks). Every element carries a class and
/// data attributes, so that a browser test can read the chart back.
struct SVGChart {
    /// What the chart shows, e.g. `rtt`.
    var metric: String
    /// Its heading, e.g. "Round-trip time (ms)".
    var title: String
    /// (seconds since the test's start, value); non-finite values are left out.
    var points: [(Double, Double)]
    /// The warning's threshold, drawn when given.
    var threshold: Double?
    /// The threshold's label, e.g. "high-rtt > 400 ms".
    var thresholdLabel: String = ""
    /// Seconds since the start at which the metric's warning was raised.
    var raised: [Double] = []
    /// And cleared.
    var cleared: [Double] = []
    /// Whether the y axis starts at 0 (MOS starts at 1).
    var floor: Double = 0

    static let width = 720.0
    static let height = 180.0
    static let left = 48.0
    static let right = 12.0
    static let top = 24.0
    static let bottom = 26.0

    /// The `<svg>` element.
    func render() -> String {
        let finite = points.filter { $0.0.isFinite && $0.1.isFinite }
        let maxX = max(finite.map(\.0).max() ?? 1, 1)
        var maxY = max(finite.map(\.1).max() ?? 1, threshold ?? 0)
        maxY = maxY <= floor ? floor + 1 : maxY * 1.1
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        func x(_ value: Double) -> Double { Self.left + value / maxX * plotWidth }
        func y(_ value: Double) -> Double { Self.top + (1 - (value - floor) / (maxY - floor)) * plotHeight }
        var svg = """
            <svg class="chart" data-metric="\(metric)" data-points="\(finite.count)" viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" \
            width="\(Int(Self.width))" height="\(Int(Self.height))" role="img" aria-label="\(HTMLText.escape(title))" xmlns="http://www.w3.org/2000/svg">
            <title>\(HTMLText.escape(title))</title>
            <text x="\(Self.left)" y="16" font-size="13" font-weight="600">\(HTMLText.escape(title))</text>
            <line x1="\(Self.left)" y1="\(y(floor))" x2="\(Self.width - Self.right)" y2="\(y(floor))" stroke="#999"/>
            <line x1="\(Self.left)" y1="\(Self.top)" x2="\(Self.left)" y2="\(y(floor))" stroke="#999"/>
            <text x="\(Self.left - 4)" y="\(Self.top + 4)" font-size="10" text-anchor="end">\(HTMLText.number(maxY, maxY < 10 ? 1 : 0))</text>
            <text x="\(Self.left - 4)" y="\(y(floor))" font-size="10" text-anchor="end">\(HTMLText.number(floor, 0))</text>
            <text x="\(Self.width - Self.right)" y="\(Self.height - 6)" font-size="10" text-anchor="end">\(HTMLText.number(maxX, 0)) s</text>

            """
        if let threshold {
            svg += """
                <line class="threshold" data-value="\(threshold)" x1="\(Self.left)" y1="\(y(threshold))" x2="\(Self.width - Self.right)" \
                y2="\(y(threshold))" stroke="#c62828" stroke-dasharray="6 4"><title>\(HTMLText.escape(thresholdLabel))</title></line>
                <text x="\(Self.width - Self.right)" y="\(y(threshold) - 4)" font-size="10" fill="#c62828" text-anchor="end">\(HTMLText.escape(thresholdLabel))</text>

                """
        }
        for (class_, seconds, colour, label) in raised.map({ ("raised", $0, "#e65100", "raised") }) + cleared.map({ ("cleared", $0, "#1a8f4a", "cleared") }) {
            let position = x(min(max(seconds, 0), maxX))
            svg += """
                <line class="mark \(class_)" data-second="\(HTMLText.number(seconds, 1))" x1="\(position)" y1="\(Self.top)" x2="\(position)" \
                y2="\(y(floor))" stroke="\(colour)" stroke-width="2"><title>\(label) at \(HTMLText.number(seconds, 1)) s</title></line>

                """
        }
        let path = finite.map { "\(HTMLText.number(x($0.0), 1)),\(HTMLText.number(y($0.1), 1))" }.joined(separator: " ")
        svg += "<polyline class=\"series\" fill=\"none\" stroke=\"#1a5fb4\" stroke-width=\"2\" points=\"\(path)\"/>\n"
        for point in finite {
            svg += "<circle class=\"sample\" cx=\"\(HTMLText.number(x(point.0), 1))\" cy=\"\(HTMLText.number(y(point.1), 1))\" r=\"2.5\" fill=\"#1a5fb4\">"
                + "<title>\(HTMLText.number(point.0, 0)) s: \(HTMLText.number(point.1, 2))</title></circle>\n"
        }
        return svg + "</svg>\n"
    }
}
