import PreflightCore

/// Where a dialed `To` leads: a client identity's registered devices, or one of the edge's test
/// applications (so that `To: echo` is a call to the echo).
public enum DialTarget: Sendable, Hashable {
    /// The devices registered for this identity (of the caller's account).
    case client(identity: String)
    /// A test application of the edge.
    case application(TestApplication)

    /// The longest `To` the edge reads, in bytes (a `client:` identity or a number).
    public static let maximumLength = 256

    /// Parses a target as `--route` and a call's `To` spell it: `client:<identity>`, or a test
    /// application's name (`echo`, `record-playback`); `nil` for anything else.
    public init?(_ text: String) {
        guard text.utf8.count <= Self.maximumLength else { return nil }
        if text.hasPrefix("client:") {
            let identity = String(text.dropFirst("client:".count))
            guard !identity.isEmpty else { return nil }
            self = .client(identity: identity)
        } else if let application = TestApplication(rawValue: text) {
            self = .application(application)
        } else {
            return nil
        }
    }

    /// Resolves a call's `To`: the route table's entry for it when there is one, else the text
    /// itself as a target.
    public static func resolve(_ to: String, routes: [String: DialTarget]) -> DialTarget? {
        routes[to] ?? DialTarget(to)
    }
}
