/// How roaming chose the edge (the report's added `edgeSelection`): every candidate with its
/// measured round-trip time, and the one used.
public struct EdgeSelection: Sendable, Hashable, Codable {
    /// The edges measured, in the order the application gave them.
    public var candidates: [EdgeCandidate]
    /// The URL of the edge used (the lowest median RTT).
    public var selectedUrl: String
    /// Its name.
    public var selectedEdge: String

    /// Creates a record.
    public init(candidates: [EdgeCandidate], selectedUrl: String, selectedEdge: String) {
        self.candidates = candidates
        self.selectedUrl = selectedUrl
        self.selectedEdge = selectedEdge
    }
}
