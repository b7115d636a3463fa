public import PreflightModel

/// Callbacks of a ``Call`` ("Twilio Voice SDK: TVOCall", `TVOCallDelegate`). It only adapts
/// ``Call/events()``: each method is one ``CallEvent``, called in order from one task. Every
/// method has an empty default.
public protocol CallDelegate: AnyObject, Sendable {
    /// The callee is being alerted.
    func callDidStartRinging(_ call: Call)
    /// Media flows.
    func callDidConnect(_ call: Call)
    /// The call ended before it connected.
    func call(_ call: Call, didFailToConnectWithError error: PreflightError)
    /// The call ended; `error` is `nil` when a party hung up normally.
    func call(_ call: Call, didDisconnectWithError error: PreflightError?)
    /// Signaling or media was lost and is being recovered.
    func call(_ call: Call, isReconnectingWithError error: PreflightError)
    /// The lost connection recovered.
    func callDidReconnect(_ call: Call)
    /// The set of active quality warnings changed.
    func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>, previousWarnings: Set<QualityWarning>)
}

extension CallDelegate {
    /// Does nothing.
    public func callDidStartRinging(_ call: Call) {}
    /// Does nothing.
    public func callDidConnect(_ call: Call) {}
    /// Does nothing.
    public func call(_ call: Call, didFailToConnectWithError error: PreflightError) {}
    /// Does nothing.
    public func call(_ call: Call, didDisconnectWithError error: PreflightError?) {}
    /// Does nothing.
    public func call(_ call: Call, isReconnectingWithError error: PreflightError) {}
    /// Does nothing.
    public func callDidReconnect(_ call: Call) {}
    /// Does nothing.
    public func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>, previousWarnings: Set<QualityWarning>) {}
}
