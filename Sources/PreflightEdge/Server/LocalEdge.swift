import Foundation
import Logging
import PreflightCore

/// An edge server in this process on ephemeral loopback ports, with its own API key and one
/// application sid per test application: what `preflight run` starts when no `--edge-url` is
/// given, the application sids `preflight serve` routes by default, and what tests use.
///
/// ```swift
/// try await LocalEdge.withRunning { edge in
///     let token = try await edge.token(application: .echo)
///     let test = PreflightTest.run(options: .init(accessToken: token, edgeURL: edge.signalingURL))
///     …
/// }
/// ```
public struct LocalEdge: Sendable {
    /// The API key sid the local edge trusts.
    public static let apiKeySID = "SK00000000000000000000000000000000"
    /// The account sid its tokens name.
    public static let accountSID = "AC00000000000000000000000000000000"
    /// The application sid routed to each test application (`serve`'s routes when none are given).
    public static func applicationSID(_ application: TestApplication) -> String {
        switch application {
        case .echo: "AP0000000000000000000000000000echo"
        case .recordPlayback: "AP00000000000000000000000000record"
        }
    }

    /// The application sid routed to the `dial` application (``DialConfiguration``), with or
    /// without answerOnBridge (`serve`'s routes when none are given).
    public static func dialApplicationSID(answerOnBridge: Bool = false) -> String {
        answerOnBridge ? "AP0000000000000000000000dialbridge" : "AP0000000000000000000000000000dial"
    }

    /// The `dial` applications of a local edge: one without answerOnBridge, one with.
    public static var dialApplications: [String: DialConfiguration] {
        [
            dialApplicationSID(answerOnBridge: false): DialConfiguration(answerOnBridge: false),
            dialApplicationSID(answerOnBridge: true): DialConfiguration(answerOnBridge: true),
        ]
    }

    /// Mints a token for calls between clients with `issuer`: outgoing calls reach the `dial`
    /// application, and with `incomingAllow` the identity may register for incoming calls.
    public static func callToken(
        issuer: AccessTokenIssuer, identity: String, answerOnBridge: Bool = false, incomingAllow: Bool = true,
        lifetime: Duration = .seconds(3600)
    ) async throws(PreflightError) -> String {
        try await issuer.mint(
            identity: identity, outgoingApplicationSID: dialApplicationSID(answerOnBridge: answerOnBridge),
            incomingAllow: incomingAllow, lifetime: lifetime)
    }

    /// The running server.
    public let server: EdgeServer
    /// Where it listens.
    public let addresses: EdgeServer.Addresses
    /// Mints tokens with the local edge's API key (for tokens of other shapes than ``token(application:identity:lifetime:)``).
    public let issuer: AccessTokenIssuer

    /// The signaling URL to give the SDK.
    public var signalingURL: String { addresses.signalingURL }

    /// Mints an access token for `application`.
    /// - Parameters:
    ///   - identity: the caller's identity; `"preflight-user"` by default.
    ///   - lifetime: 1 hour by default.
    ///   - issuedAt: now by default; a time in the past mints a token that has already expired.
    public func token(
        application: TestApplication = .echo, identity: String = "preflight-user", lifetime: Duration = .seconds(3600),
        issuedAt: Date = Date()
    ) async throws(PreflightError) -> String {
        try await issuer.mint(
            identity: identity, outgoingApplicationSID: Self.applicationSID(application), lifetime: lifetime, now: issuedAt)
    }

    /// Mints a token for calls between clients (see ``callToken(issuer:identity:answerOnBridge:incomingAllow:lifetime:)``).
    public func callToken(
        identity: String, answerOnBridge: Bool = false, incomingAllow: Bool = true
    ) async throws(PreflightError) -> String {
        try await Self.callToken(issuer: issuer, identity: identity, answerOnBridge: answerOnBridge, incomingAllow: incomingAllow)
    }

    /// The test number a local edge routes to its echo application (Telnyx's pre-call diagnosis
    /// calls it; `preflight serve` routes it too when no `--route` is given).
    public static let testNumber = "+18005551234"

    /// The routes of the `dial` application a local edge has: ``testNumber`` to the echo.
    public static var defaultRoutes: [String: DialTarget] { [testNumber: .application(.echo)] }

    /// The configuration of a local edge: loopback, ephemeral ports, a fresh random secret, both
    /// test applications, the two `dial` applications and ``defaultRoutes``. Adjust limits on the value before passing it to ``withRunning(configuration:logger:_:)``.
    public static func configuration(secret: String = randomSecret()) -> EdgeConfiguration {
        var configuration = EdgeConfiguration(
            host: "127.0.0.1", edgeName: "local", apiKeys: [apiKeySID: secret], accounts: [apiKeySID: accountSID],
            applications: Dictionary(uniqueKeysWithValues: TestApplication.allCases.map { (applicationSID($0), $0) }),
            applicationAccounts: Dictionary(uniqueKeysWithValues: TestApplication.allCases.map { (applicationSID($0), accountSID) }))
        configuration.dialApplications = dialApplications
        for sid in dialApplications.keys { configuration.applicationAccounts[sid] = accountSID }
        configuration.routes = defaultRoutes
        return configuration
    }

    /// A random 48-character secret.
    public static func randomSecret() -> String {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<48).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
    }

    /// Runs an edge for the duration of `body`, then stops it.
    /// - Parameters:
    ///   - configuration: the edge's configuration; ``configuration(secret:)`` by default. Its API
    ///     key ``apiKeySID`` must be present: tokens are minted with it.
    ///   - logger: the edge's logger; silent by default.
    public static func withRunning<Result: Sendable>(
        configuration: EdgeConfiguration = LocalEdge.configuration(),
        logger: Logger = Logger(label: "preflight.edge", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: @Sendable (LocalEdge) async throws -> Result
    ) async throws -> Result {
        guard let secret = configuration.apiKeys[apiKeySID] else {
            throw PreflightError(code: .invalidArgument, message: "local edge: the configuration lacks API key \(apiKeySID)")
        }
        let server = try await EdgeServer(configuration: configuration, logger: logger)
        let issuer = try await AccessTokenIssuer(apiKeySID: apiKeySID, apiKeySecret: secret, accountSID: accountSID)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await server.run()
                return nil
            }
            let addresses = try await server.addresses()
            let result = try await body(LocalEdge(server: server, addresses: addresses, issuer: issuer))
            group.cancelAll()
            return result
        }
    }
}
