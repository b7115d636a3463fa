/// What a last-mile probe measures, as Agora's `AgoraLastmileProbeConfig` ("Agora: Last-mile
/// network probe test"): which directions, and the bitrate the application expects to need in
/// each. The probe never sends a direction faster than 1.5 × its expected bitrate, so a path that
/// carries more reports "at least the expected bitrate" rather than its capacity.
public struct LastmileProbeConfig: Sendable, Hashable, Codable {
    /// The lowest expected bitrate, bps (Agora's range).
    public static let minimumBitrate = 100_000
    /// The highest expected bitrate, bps (Agora's range).
    public static let maximumBitrate = 5_000_000

    /// Probe the uplink (client → edge). Default `true`.
    public var probeUplink: Bool
    /// Probe the downlink (edge → client). Default `true`.
    public var probeDownlink: Bool
    /// The uplink bitrate the application expects to use, bps, 100,000…5,000,000. Default 5,000,000.
    public var expectedUplinkBitrate: Int
    /// The downlink bitrate the application expects to use, bps, 100,000…5,000,000. Default 5,000,000.
    public var expectedDownlinkBitrate: Int

    /// Creates a configuration.
    public init(
        probeUplink: Bool = true, probeDownlink: Bool = true, expectedUplinkBitrate: Int = 5_000_000,
        expectedDownlinkBitrate: Int = 5_000_000
    ) {
        self.probeUplink = probeUplink
        self.probeDownlink = probeDownlink
        self.expectedUplinkBitrate = expectedUplinkBitrate
        self.expectedDownlinkBitrate = expectedDownlinkBitrate
    }

    /// Checks the configuration as the probe will: a value out of range is an error, never clamped.
    /// - Throws: 70301 when neither direction is asked for, or an expected bitrate of a probed
    ///   direction is outside 100,000…5,000,000 bps.
    public func validate() throws(PreflightError) {
        guard probeUplink || probeDownlink else {
            throw PreflightError(code: .invalidProbeConfiguration, message: "last-mile probe: neither the uplink nor the downlink is to be probed")
        }
        for (probed, value, name) in [
            (probeUplink, expectedUplinkBitrate, "expectedUplinkBitrate"), (probeDownlink, expectedDownlinkBitrate, "expectedDownlinkBitrate"),
        ] where probed {
            guard (Self.minimumBitrate...Self.maximumBitrate).contains(value) else {
                throw PreflightError(
                    code: .invalidProbeConfiguration,
                    message: "last-mile probe: \(name) \(value) bps is outside \(Self.minimumBitrate)…\(Self.maximumBitrate) bps")
            }
        }
    }
}
