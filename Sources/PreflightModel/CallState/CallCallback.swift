/// An output of the ``CallStateMachine``: one `TVOCallDelegate` callback ("Twilio Voice SDK: TVOCall").
package enum CallCallback: Sendable, Equatable {
    /// `callDidStartRinging:`.
    case didStartRinging
    /// `callDidConnect:`.
    case didConnect
    /// `call:didFailToConnectWithError:`.
    case didFailToConnect(PreflightError)
    /// `call:didDisconnectWithError:`; `nil` when a side hung up normally.
    case didDisconnect(PreflightError?)
    /// `call:isReconnectingWithError:`, with the signaling or media error that caused it.
    case isReconnecting(PreflightError)
    /// `callDidReconnect:`.
    case didReconnect

    /// Equal when the cases match and, for errors, their codes and messages match
    /// (``PreflightError`` itself is not `Equatable`: its underlying error is an existential).
    package static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.didStartRinging, .didStartRinging), (.didConnect, .didConnect), (.didReconnect, .didReconnect):
            return true
        case let (.didFailToConnect(a), .didFailToConnect(b)), let (.isReconnecting(a), .isReconnecting(b)):
            return a.code == b.code && a.message == b.message
        case let (.didDisconnect(a), .didDisconnect(b)):
            switch (a, b) {
            case (nil, nil): return true
            case let (a?, b?): return a.code == b.code && a.message == b.message
            default: return false
            }
        default:
            return false
        }
    }
}
