/// Which edge a test runs against: one signaling URL, or the nearest of several.
public enum EdgeOption: Sendable, Hashable {
    /// This edge's signaling URL.
    case url(String)
    /// The edge of these (signaling URLs or HTTP bases) with the lowest round-trip time: before
    /// the test, each edge's init endpoint tells where its media port is, STUN Binding pings to
    /// all of them run in parallel, and the lowest median RTT wins (``EdgeSelection``).
    case roaming([String])
}
