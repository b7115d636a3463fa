/// The `dial` application: the edge's counterpart of TwiML's `<Dial>` (docs/protocol.md, "Calls
/// between clients"). A caller's `To` names whom to ring; the edge rings every registered device
/// of that identity, bridges the first that answers, and tells the caller how it went.
public struct DialConfiguration: Sendable, Hashable {
    /// `<Dial answerOnBridge>`: `false` (the default) answers the caller right after ringing
    /// starts, so the caller is connected while the callee's devices ring; `true` answers the
    /// caller only when the callee answers ("Twilio Voice SDK: TVOCall", answerOnBridge).
    public var answerOnBridge: Bool
    /// `<Dial timeout>`: how long the callee's devices ring before the call fails with 31480;
    /// 30 s by default, as TwiML's.
    public var ringTimeout: Duration

    /// Creates a configuration; see each property for its default.
    public init(answerOnBridge: Bool = false, ringTimeout: Duration = .seconds(30)) {
        self.answerOnBridge = answerOnBridge
        self.ringTimeout = ringTimeout
    }
}
