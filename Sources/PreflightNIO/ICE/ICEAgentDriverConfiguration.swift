import PreflightCore

/// The settings of an ``ICEAgentDriver``: the agent's, and what the driver binds and trusts.
public struct ICEAgentDriverConfiguration: Sendable {
    /// The agent's settings.
    public var agent: ICEAgent.Configuration
    /// The address the IPv4 socket binds: every interface (`"0.0.0.0"`) by default.
    public var ipv4Address: String
    /// Whether an IPv6 socket is bound beside it (if the host has IPv6): `true` by default.
    public var bindsIPv6: Bool
    /// Whether host candidates are the loopback addresses (the remote side is on loopback) or the
    /// others: `false` by default.
    public var offersLoopback: Bool
    /// A PEM file of CA certificates to trust for `turns:` besides the system's: `nil` by default.
    public var turnTrustedCertificatesFile: String?
    /// The sockets' receive buffer, bytes (`SO_RCVBUF`; the kernel may cap it): `nil`, the
    /// system's default, by default. A bandwidth probe asks for ≥ 1 MB so that a burst is not
    /// dropped on this host.
    public var receiveBufferSize: Int?
    /// The network types of named interfaces, for the host candidates (the command line's
    /// `--network-type`): `nil`, `PREFLIGHT_NETWORK_TYPES`'s, by default.
    public var networkTypeOverrides: NetworkTypeOverrides?

    /// Creates a configuration; every parameter has the default documented on its property.
    public init(
        agent: ICEAgent.Configuration = ICEAgent.Configuration(), ipv4Address: String = "0.0.0.0", bindsIPv6: Bool = true,
        offersLoopback: Bool = false, turnTrustedCertificatesFile: String? = nil,
        receiveBufferSize: Int? = nil, networkTypeOverrides: NetworkTypeOverrides? = nil
    ) {
        self.networkTypeOverrides = networkTypeOverrides
        self.receiveBufferSize = receiveBufferSize
        self.agent = agent
        self.ipv4Address = ipv4Address
        self.bindsIPv6 = bindsIPv6
        self.offersLoopback = offersLoopback
        self.turnTrustedCertificatesFile = turnTrustedCertificatesFile
    }
}
