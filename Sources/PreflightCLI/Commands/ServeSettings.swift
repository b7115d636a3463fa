import ArgumentParser
import PreflightCore
import PreflightEdge

/// A whole-number setting of `preflight serve`: its option, its environment variable, its default
/// and the range it must be in. `validate()` checks the option as given; the configuration checks
/// the value it settles on (option, else variable, else default) with the same rule and message.
struct NumberSetting: Sendable {
    /// The option: "--port".
    var option: String
    /// The environment variable: "PREFLIGHT_PORT".
    var variable: String
    /// The value when neither gives one.
    var defaultValue: Int
    /// The values allowed.
    var range: ClosedRange<Int>

    /// The rule: `value` is in ``range``.
    /// - Throws: `ValidationError` "--port must be 0 to 65535, got 70000" (or "must be positive").
    func check(_ value: Int) throws(ValidationError) {
        guard !range.contains(value) else { return }
        let allowed = range.upperBound == Int.max
            ? (range.lowerBound == 1 ? "positive" : "at least \(range.lowerBound)")
            : "\(range.lowerBound) to \(range.upperBound)"
        throw ValidationError("\(option) (\(variable)) must be \(allowed), got \(value)")
    }

    /// The option's value, else the variable's, else the default, checked.
    /// - Throws: `ValidationError` for a variable that is not a whole number or a value out of range.
    func value(option given: Int?, environment: [String: String]) throws(ValidationError) -> Int {
        let value: Int
        if let given {
            value = given
        } else if let text = environment[variable] {
            guard let parsed = Int(text) else { throw ValidationError("\(variable) must be a whole number, got \"\(text)\"") }
            value = parsed
        } else {
            value = defaultValue
        }
        try check(value)
        return value
    }
}

/// The whole-number settings `serve` reads, with their defaults (docs/security.md lists the limits).
extension NumberSetting {
    static let mediaThreads = NumberSetting(
        option: "--media-threads", variable: "PREFLIGHT_MEDIA_THREADS", defaultValue: 1, range: 1...64)
    static let port = NumberSetting(option: "--port", variable: "PREFLIGHT_PORT", defaultValue: 8080, range: 0...65535)
    static let mediaPort = NumberSetting(option: "--media-port", variable: "PREFLIGHT_MEDIA_PORT", defaultValue: 0, range: 0...65535)
    static let advertisePort = NumberSetting(
        option: "--advertise-port", variable: "PREFLIGHT_ADVERTISE_PORT", defaultValue: 0, range: 1...65535)
    static let maxSessions = NumberSetting(option: "--max-sessions", variable: "PREFLIGHT_MAX_SESSIONS", defaultValue: 1000, range: 1...Int.max)
    static let maxSessionsPerAccount = NumberSetting(
        option: "--max-sessions-per-account", variable: "PREFLIGHT_MAX_SESSIONS_PER_ACCOUNT", defaultValue: 500, range: 1...Int.max)
    static let maxSessionsPerIdentity = NumberSetting(
        option: "--max-sessions-per-identity", variable: "PREFLIGHT_MAX_SESSIONS_PER_IDENTITY", defaultValue: 5, range: 1...Int.max)
    static let maxDuration = NumberSetting(option: "--max-duration", variable: "PREFLIGHT_MAX_DURATION", defaultValue: 120, range: 1...Int.max)
    static let signalingTimeout = NumberSetting(
        option: "--signaling-timeout", variable: "PREFLIGHT_SIGNALING_TIMEOUT", defaultValue: 10, range: 1...3600)
    static let sessionResumeWindow = NumberSetting(
        option: "--session-resume-window", variable: "PREFLIGHT_SESSION_RESUME_WINDOW", defaultValue: 10, range: 0...300)
    static let ringTimeout = NumberSetting(option: "--ring-timeout", variable: "PREFLIGHT_RING_TIMEOUT", defaultValue: 30, range: 1...3600)
    static let maxCallDuration = NumberSetting(
        option: "--max-call-duration", variable: "PREFLIGHT_MAX_CALL_DURATION", defaultValue: 14_400, range: 1...Int.max)
    static let maxLoggedCalls = NumberSetting(
        option: "--max-logged-calls", variable: "PREFLIGHT_MAX_LOGGED_CALLS", defaultValue: 20_000, range: 1...10_000_000)
    static let maxLoggedCallsPerAccount = NumberSetting(
        option: "--max-logged-calls-per-account", variable: "PREFLIGHT_MAX_LOGGED_CALLS_PER_ACCOUNT", defaultValue: 10_000,
        range: 1...10_000_000)
    static let turnCredentialLifetime = NumberSetting(
        option: "--turn-credential-lifetime", variable: "PREFLIGHT_TURN_CREDENTIAL_LIFETIME", defaultValue: 3600, range: 1...Int.max)
    static let maxConnections = NumberSetting(
        option: "--max-connections", variable: "PREFLIGHT_MAX_CONNECTIONS", defaultValue: 2048, range: 1...Int.max)
    static let maxConnectionsPerAddress = NumberSetting(
        option: "--max-connections-per-address", variable: "PREFLIGHT_MAX_CONNECTIONS_PER_ADDRESS", defaultValue: 64, range: 1...Int.max)
    static let ipv6PrefixLength = NumberSetting(
        option: "--ipv6-prefix-length", variable: "PREFLIGHT_IPV6_PREFIX_LENGTH", defaultValue: 64, range: EdgeHTTPLimits.ipv6PrefixLengths)
    static let headerTimeout = NumberSetting(option: "--header-timeout", variable: "PREFLIGHT_HEADER_TIMEOUT", defaultValue: 10, range: 1...Int.max)
    static let idleTimeout = NumberSetting(option: "--idle-timeout", variable: "PREFLIGHT_IDLE_TIMEOUT", defaultValue: 60, range: 1...Int.max)
    static let pingInterval = NumberSetting(option: "--ping-interval", variable: "PREFLIGHT_PING_INTERVAL", defaultValue: 30, range: 0...3600)
    static let retentionDays = NumberSetting(
        option: "--retention-days", variable: "PREFLIGHT_RETENTION_DAYS", defaultValue: 30, range: 1...36_500)
    static let memoryStoreMiB = NumberSetting(
        option: "--memory-store-mib", variable: "PREFLIGHT_MEMORY_STORE_MIB", defaultValue: 64, range: 1...65_536)
    static let quotaIdentityMiB = NumberSetting(
        option: "--quota-identity-mib", variable: "PREFLIGHT_QUOTA_IDENTITY_MIB", defaultValue: 16, range: 1...1_048_576)
    static let quotaIdentityRows = NumberSetting(
        option: "--quota-identity-rows", variable: "PREFLIGHT_QUOTA_IDENTITY_ROWS", defaultValue: 10_000, range: 1...1_000_000_000)
    static let quotaAccountMiB = NumberSetting(
        option: "--quota-account-mib", variable: "PREFLIGHT_QUOTA_ACCOUNT_MIB", defaultValue: 1024, range: 1...1_048_576)
    static let quotaAccountRows = NumberSetting(
        option: "--quota-account-rows", variable: "PREFLIGHT_QUOTA_ACCOUNT_ROWS", defaultValue: 1_000_000, range: 1...1_000_000_000)
}

/// `serve`'s application routes: `SID=echo`, `SID=record-playback`, `SID=dial` or
/// `SID=dial:answer-on-bridge`, from `--application` or `PREFLIGHT_APPLICATIONS` (comma-separated).
enum ApplicationRoutes {
    /// What one route leads to.
    enum Target: Equatable {
        case test(TestApplication)
        case dial(answerOnBridge: Bool)
    }

    static let rule = "--application must be SID=echo, SID=record-playback, SID=dial or SID=dial:answer-on-bridge"

    /// The rule for one route: a non-empty sid, `=`, an application's name.
    /// - Throws: `ValidationError` quoting the route.
    static func parse(_ route: String) throws(ValidationError) -> (sid: String, target: Target) {
        let parts = route.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("\(rule), got \"\(route)\"") }
        switch parts[1] {
        case "dial": return (parts[0], .dial(answerOnBridge: false))
        case "dial:answer-on-bridge": return (parts[0], .dial(answerOnBridge: true))
        default:
            guard let application = TestApplication(rawValue: parts[1]) else { throw ValidationError("\(rule), got \"\(route)\"") }
            return (parts[0], .test(application))
        }
    }

    /// Every route parsed; a sid given twice keeps its last application.
    static func parse(_ routes: [String]) throws(ValidationError) -> [String: Target] {
        var targets: [String: Target] = [:]
        for route in routes {
            let (sid, target) = try parse(route)
            targets[sid] = target
        }
        return targets
    }
}

/// `serve`'s dial routes: `TO=client:IDENTITY`, `TO=echo` or `TO=record-playback`, from `--route`
/// or `PREFLIGHT_ROUTES` (comma-separated).
enum DialRoutes {
    /// Every route parsed; a `TO` given twice keeps its last target.
    /// - Throws: `ValidationError` quoting a route that does not follow the rule.
    static func parse(_ routes: [String]) throws(ValidationError) -> [String: DialTarget] {
        var table: [String: DialTarget] = [:]
        for route in routes {
            let parts = route.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= DialTarget.maximumLength,
                let target = DialTarget(parts[1])
            else {
                throw ValidationError("--route must be TO=client:IDENTITY, TO=echo or TO=record-playback, got \"\(route)\"")
            }
            table[parts[0]] = target
        }
        return table
    }
}
