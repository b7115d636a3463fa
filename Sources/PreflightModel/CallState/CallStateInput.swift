/// An input to the ``CallStateMachine``: something signaling, media or the user did.
package enum CallStateInput: Sendable, Equatable {
    /// The signaling server reports that the remote side is being alerted.
    case ringing
    /// The remote side answered (for a caller with answerOnBridge, the dialed party was bridged);
    /// the server's answer to our offer arrived.
    case answered
    /// The local user called `disconnect()`.
    case localDisconnect
    /// The remote side hung up.
    case remoteHangup
    /// A fatal error: before the call connected it is a failure to connect, after it a disconnect
    /// with that error.
    case failed(PreflightError)
    /// Signaling or media was lost while connected; the call tries to recover.
    case connectionInterrupted(PreflightError)
    /// The interrupted signaling or media connection recovered.
    case reconnected
    /// The user muted (`true`) or unmuted (`false`) the audio input.
    case mute(Bool)
    /// The user put the call on hold (`true`) or resumed it (`false`).
    case hold(Bool)

    /// Equal when the cases match and, for errors, their codes and messages match
    /// (``PreflightError`` itself is not `Equatable`: its underlying error is an existential).
    package static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.ringing, .ringing), (.answered, .answered), (.localDisconnect, .localDisconnect),
             (.remoteHangup, .remoteHangup), (.reconnected, .reconnected):
            return true
        case let (.failed(a), .failed(b)), let (.connectionInterrupted(a), .connectionInterrupted(b)):
            return a.code == b.code && a.message == b.message
        case let (.mute(a), .mute(b)), let (.hold(a), .hold(b)):
            return a == b
        default:
            return false
        }
    }
}
