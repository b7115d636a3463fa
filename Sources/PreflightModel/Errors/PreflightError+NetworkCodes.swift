extension PreflightError.Code {
    // MARK: The host's networks (Preflight's own range, 70900–70999; docs/errors.md)

    /// 70901: the network monitor could not watch the host's networks: the netlink socket could
    /// not be opened or bound, or the kernel did not answer its first dumps within 5 s (Linux); no
    /// monitor on this platform.
    public static let networkMonitorUnavailable = Self(70901)
    /// 70902: no network is left: the host has no usable interface with an address (a run ends
    /// with it and its partial report).
    public static let noNetwork = Self(70902)
}
