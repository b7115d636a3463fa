public import PreflightModel

/// Receives a ``PreflightTest``'s events: Twilio's `PreflightDelegate` callbacks. Every
/// method has an empty default. Methods are called in event order from a background task; hop to
/// the main actor yourself to touch UI. The test keeps its delegate until it ends.
public protocol PreflightTestDelegate: AnyObject, Sendable {
    /// The test connected to the edge.
    func preflightTestDidConnect(_ test: PreflightTest)
    /// The test completed with its report.
    func preflightTest(_ test: PreflightTest, didCompleteWith report: PreflightReport)
    /// The test failed; ``PreflightTest/partialReport`` holds what was collected.
    func preflightTest(_ test: PreflightTest, didFailWithError error: PreflightError)
    /// A stats sample, every second.
    func preflightTest(_ test: PreflightTest, didReceive sample: StatsSample)
    /// The media path went quiet and the test is trying to reconnect (Twilio's
    /// `call:isReconnectingWithError:`).
    func preflightTest(_ test: PreflightTest, isReconnectingWithError error: PreflightError)
    /// Media flows again after a reconnect.
    func preflightTestDidReconnect(_ test: PreflightTest)
    /// The active quality warnings changed.
    func preflightTest(
        _ test: PreflightTest, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>,
        previousWarnings: Set<QualityWarning>)
}

extension PreflightTestDelegate {
    /// Does nothing.
    public func preflightTestDidConnect(_ test: PreflightTest) {}
    /// Does nothing.
    public func preflightTest(_ test: PreflightTest, didCompleteWith report: PreflightReport) {}
    /// Does nothing.
    public func preflightTest(_ test: PreflightTest, didFailWithError error: PreflightError) {}
    /// Does nothing.
    public func preflightTest(_ test: PreflightTest, didReceive sample: StatsSample) {}
    /// Does nothing.
    public func preflightTest(_ test: PreflightTest, isReconnectingWithError error: PreflightError) {}
    /// Does nothing.
    public func preflightTestDidReconnect(_ test: PreflightTest) {}
    /// Does nothing.
    public func preflightTest(
        _ test: PreflightTest, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>,
        previousWarnings: Set<QualityWarning>
    ) {}
}
