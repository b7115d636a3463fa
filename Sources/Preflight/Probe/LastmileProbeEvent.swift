public import PreflightModel

/// What a ``LastmileProbe`` reports, in order: Agora's two callbacks.
public enum LastmileProbeEvent: Sendable, Hashable {
    /// Every 2 s from ``LastmileProbe/start(config:)``: the rating so far (the first may be
    /// ``NetworkQuality/unknown``, before media flows).
    case lastmileQuality(NetworkQuality)
    /// Once, last: the result (also after ``LastmileProbe/stop()`` or an error, with what was
    /// measured and the error in ``LastmileProbeResult/error``).
    case lastmileProbeResult(LastmileProbeResult)
}
