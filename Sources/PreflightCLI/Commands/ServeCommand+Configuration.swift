import ArgumentParser
import Foundation
import PreflightCore
import PreflightEdge
import Prometheus

extension ServeCommand {
    /// The edge configuration from the options and the environment: each value from its option,
    /// else its `PREFLIGHT_…` variable, else its default, checked with the rule `validate()`
    /// applies to the option.
    /// - Throws: `ValidationError` for missing or malformed values; ``CommandFailure`` (70005)
    ///   for a secret file that cannot be read, an empty secret, or half a TLS certificate and key
    ///   pair.
    public func edgeConfiguration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> EdgeConfiguration {
        let resolved = try credentials.resolve(environment: environment)
        var routes = self.applications
        // PREFLIGHT_APPS is the variable's old name, still read.
        if routes.isEmpty, let text = environment["PREFLIGHT_APPLICATIONS"] ?? environment["PREFLIGHT_APPS"] {
            routes = Self.commaSeparated(text)
        }
        let targets = try ApplicationRoutes.parse(routes)
        var applications: [String: TestApplication] = [:]
        var dialApplications: [String: DialConfiguration] = [:]
        let ringTimeout = Duration.seconds(try NumberSetting.ringTimeout.value(option: ringTimeout, environment: environment))
        for (sid, target) in targets {
            switch target {
            case .test(let application): applications[sid] = application
            case .dial(let answerOnBridge): dialApplications[sid] = DialConfiguration(answerOnBridge: answerOnBridge, ringTimeout: ringTimeout)
            }
        }
        if targets.isEmpty {
            applications = Dictionary(uniqueKeysWithValues: TestApplication.allCases.map { (LocalEdge.applicationSID($0), $0) })
            dialApplications = LocalEdge.dialApplications.mapValues {
                DialConfiguration(answerOnBridge: $0.answerOnBridge, ringTimeout: ringTimeout)
            }
        }
        var dialRoutes = self.routes
        if dialRoutes.isEmpty, let text = environment["PREFLIGHT_ROUTES"] { dialRoutes = Self.commaSeparated(text) }
        let port = try NumberSetting.port.value(option: port, environment: environment)
        let mediaPort = try NumberSetting.mediaPort.value(option: mediaPort, environment: environment)
        let advertisedPort = try (advertisePort != nil || environment["PREFLIGHT_ADVERTISE_PORT"] != nil)
            ? NumberSetting.advertisePort.value(option: advertisePort, environment: environment) : nil
        var media = MediaService.Configuration()
        media.threads = try NumberSetting.mediaThreads.value(option: mediaThreads, environment: environment)
        if let rate = packetRate ?? environment["PREFLIGHT_PACKET_RATE"].flatMap(Double.init) {
            guard rate > 0 else { throw ValidationError("--packet-rate must be positive, got \(rate)") }
            media.packetsPerSecondPerSource = rate
            media.burstPerSource = max(10, rate / 2)
        }
        let iceServers = try self.iceServers(environment: environment)
        let pingSeconds = try NumberSetting.pingInterval.value(option: pingInterval, environment: environment)
        let limits = EdgeHTTPLimits(
            headerTimeout: .seconds(try NumberSetting.headerTimeout.value(option: headerTimeout, environment: environment)),
            idleTimeout: .seconds(try NumberSetting.idleTimeout.value(option: idleTimeout, environment: environment)),
            maximumConnections: try NumberSetting.maxConnections.value(option: maxConnections, environment: environment),
            maximumConnectionsPerAddress: try NumberSetting.maxConnectionsPerAddress.value(
                option: maxConnectionsPerAddress, environment: environment),
            ipv6PrefixLength: try NumberSetting.ipv6PrefixLength.value(option: ipv6PrefixLength, environment: environment),
            webSocketPingInterval: pingSeconds == 0 ? nil : .seconds(pingSeconds))
        var configuration = EdgeConfiguration(
            host: host ?? environment["PREFLIGHT_HOST"] ?? "127.0.0.1", httpPort: port, mediaPort: mediaPort,
            advertisedAddress: advertise ?? environment["PREFLIGHT_ADVERTISE"], advertisedMediaPort: advertisedPort,
            edgeName: edgeName ?? environment["PREFLIGHT_EDGE_NAME"] ?? "local", apiKeys: [resolved.apiKey: resolved.apiSecret],
            accounts: [resolved.apiKey: resolved.account], applications: applications,
            applicationAccounts: applications.mapValues { _ in resolved.account },
            iceServers: iceServers.servers, turnSecret: iceServers.turnSecret,
            turnCredentialLifetime: .seconds(
                try NumberSetting.turnCredentialLifetime.value(option: turnCredentialLifetime, environment: environment)),
            offersSTUN: !noEdgeSTUN,
            maximumSessions: try NumberSetting.maxSessions.value(option: maxSessions, environment: environment),
            maximumSessionsPerAccount: try NumberSetting.maxSessionsPerAccount.value(option: maxSessionsPerAccount, environment: environment),
            maximumSessionsPerIdentity: try NumberSetting.maxSessionsPerIdentity.value(
                option: maxSessionsPerIdentity, environment: environment),
            maximumTestDuration: .seconds(try NumberSetting.maxDuration.value(option: maxDuration, environment: environment)),
            signalingTimeout: .seconds(try NumberSetting.signalingTimeout.value(option: signalingTimeout, environment: environment)),
            sessionResumeWindow: .seconds(
                try NumberSetting.sessionResumeWindow.value(option: sessionResumeWindow, environment: environment)),
            media: media, tls: try tlsConfiguration(environment: environment), httpLimits: limits)
        configuration.publicSignalingURL = publicURL ?? environment["PREFLIGHT_PUBLIC_URL"]
        if let url = configuration.publicSignalingURL {
            guard let parsed = URL(string: url), ["ws", "wss"].contains(parsed.scheme ?? ""), parsed.host != nil, url.utf8.count <= 2048 else {
                throw ValidationError("--public-url must be a ws:// or wss:// URL, got \"\(url.prefix(200))\"")
            }
        }
        configuration.dialApplications = dialApplications
        for sid in dialApplications.keys { configuration.applicationAccounts[sid] = resolved.account }
        // Without routes of its own, the edge routes the local edge's test number to the echo.
        configuration.routes = dialRoutes.isEmpty ? LocalEdge.defaultRoutes : try DialRoutes.parse(dialRoutes)
        configuration.maximumCallDuration = .seconds(
            try NumberSetting.maxCallDuration.value(option: maxCallDuration, environment: environment))
        if inviteRate == nil, let text = environment["PREFLIGHT_INVITE_RATE"], Double(text) == nil {
            throw ValidationError("PREFLIGHT_INVITE_RATE must be a number, got \"\(text.prefix(40))\"")
        }
        if let rate = inviteRate ?? environment["PREFLIGHT_INVITE_RATE"].flatMap(Double.init) {
            guard rate > 0, rate.isFinite else { throw ValidationError("--invite-rate must be positive, got \(rate)") }
            configuration.callLimits.callerInviteRate = rate
        }
        configuration.callLimits.maximumLoggedCalls = try NumberSetting.maxLoggedCalls.value(option: maxLoggedCalls, environment: environment)
        configuration.callLimits.maximumLoggedCallsPerAccount = try NumberSetting.maxLoggedCallsPerAccount.value(
            option: maxLoggedCallsPerAccount, environment: environment)
        if let location = database ?? environment["PREFLIGHT_DATABASE"] {
            do {
                configuration.store = try StoreLocation(parsing: location)
            } catch {
                throw ValidationError(error.message)
            }
        }
        if routeAcrossEdges {
            guard case .postgres = configuration.store else {
                throw ValidationError("--route-across-edges needs a PostgreSQL --database the edges share")
            }
            guard edgeName ?? environment["PREFLIGHT_EDGE_NAME"] != nil else {
                throw ValidationError("--route-across-edges needs an --edge-name of this edge's own")
            }
            configuration.routesAcrossEdges = true
            if let trunkAddress {
                guard let address = ClusterTrunkAddress.parse(trunkAddress) else {
                    throw ValidationError("--trunk-address must be IP:PORT or [IPv6]:PORT, got \(UntrustedText.quoted(trunkAddress))")
                }
                configuration.trunkAddress = address
            }
        }
        if let apiRate {
            guard apiRate.isFinite, (0.1...100_000).contains(apiRate) else {
                throw ValidationError("--api-rate must be 0.1 to 100000 requests a second, got \(apiRate)")
            }
            configuration.rateLimits.apiRequests = .init(perSecond: apiRate, burst: apiRate * 10)
        }
        let drain = drainLimit ?? (routeAcrossEdges ? 30 : 0)
        guard (0...86_400).contains(drain) else { throw ValidationError("--drain-limit must be 0 to 86400 seconds, got \(drain)") }
        configuration.drainLimit = .seconds(drain)
        configuration.reportRetention = .seconds(
            try NumberSetting.retentionDays.value(option: retentionDays, environment: environment) * 86_400)
        configuration.memoryStoreLimit = try NumberSetting.memoryStoreMiB.value(option: memoryStoreMiB, environment: environment) << 20
        configuration.storeQuota = StoreQuota.Limits(
            identityBytes: try NumberSetting.quotaIdentityMiB.value(option: quotaIdentityMiB, environment: environment) << 20,
            identityRows: try NumberSetting.quotaIdentityRows.value(option: quotaIdentityRows, environment: environment),
            accountBytes: try NumberSetting.quotaAccountMiB.value(option: quotaAccountMiB, environment: environment) << 20,
            accountRows: try NumberSetting.quotaAccountRows.value(option: quotaAccountRows, environment: environment))
        // `/metrics`: the edge records into this registry (the process's metrics system is left alone).
        configuration.prometheusRegistry = PrometheusCollectorRegistry()
        return configuration
    }

    /// The rule for the TLS files: both or neither.
    static let tlsPairRule = "--tls-cert and --tls-key go together (or PREFLIGHT_TLS_CERT and PREFLIGHT_TLS_KEY)"

    /// The STUN/TURN servers handed out in welcome, and the secret their TURN credentials are made
    /// with (none with fixed credentials).
    private func iceServers(environment: [String: String]) throws -> (servers: [ICEServer], turnSecret: String?) {
        let options = iceServerOptions
        var urls = options.iceServers
        if urls.isEmpty, let text = environment["PREFLIGHT_ICE_SERVERS"] {
            urls = Self.commaSeparated(text)
            for url in urls { try ICEServerOptions.checkURL(url) }
        }
        guard !urls.isEmpty else { return ([], try options.resolvedTURNSecret(environment: environment)) }
        if let username = options.turnUsername {
            return ([ICEServer(urls: urls, username: username, credential: options.turnCredential)], nil)
        }
        let secret = try options.resolvedTURNSecret(environment: environment)
        if ICEServerOptions.containsTURN(urls), secret == nil {
            throw ValidationError(
                "a TURN --ice-server needs credentials: --turn-secret-file (or PREFLIGHT_TURN_SECRET), or --turn-username and --turn-credential")
        }
        return ([ICEServer(urls: urls)], secret)
    }

    /// The TLS files from the options or the environment: both or neither.
    private func tlsConfiguration(environment: [String: String]) throws -> EdgeTLSConfiguration? {
        let certificate = tlsCert ?? environment["PREFLIGHT_TLS_CERT"]
        let key = tlsKey ?? environment["PREFLIGHT_TLS_KEY"]
        switch (certificate, key) {
        case (nil, nil):
            return nil
        case (let certificate?, let key?):
            return EdgeTLSConfiguration(certificateChainFile: certificate, privateKeyFile: key)
        default:
            throw CommandFailure(PreflightError(code: .invalidArgument, message: Self.tlsPairRule))
        }
    }

    /// `text` split at commas, each entry trimmed.
    private static func commaSeparated(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) }
    }
}
