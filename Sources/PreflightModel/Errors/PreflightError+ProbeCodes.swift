extension PreflightError.Code {
    // MARK: The last-mile probe (Preflight's own range, 70300–70399; docs/errors.md)

    /// 70301: a last-mile probe configuration is unusable: an expected bitrate outside
    /// 100,000…5,000,000 bps, or neither direction asked for.
    public static let invalidProbeConfiguration = Self(70301)
    /// 70302: the edge refused a probe request: no probe is running on the session, a train
    /// asks for more than the probe's rate or byte budget, or a second probe on one session.
    public static let probeRefused = Self(70302)
}
