public import PreflightModel

/// Receives a ``LastmileProbe``'s events as Agora's callbacks. Both methods have an empty
/// default; they are called in event order from a background task (hop to the main actor
/// yourself to touch UI). The delegate only adapts ``LastmileProbe/events()``.
public protocol LastmileProbeDelegate: AnyObject, Sendable {
    /// The rating so far, every 2 s (Agora's `lastmileQuality`).
    func lastmileQuality(_ quality: NetworkQuality)
    /// The result, once (Agora's `lastmileProbeResult`).
    func lastmileProbeResult(_ result: LastmileProbeResult)
}

extension LastmileProbeDelegate {
    /// Does nothing.
    public func lastmileQuality(_ quality: NetworkQuality) {}
    /// Does nothing.
    public func lastmileProbeResult(_ result: LastmileProbeResult) {}
}
