public import PreflightModel

/// What a ``Call`` reports, in order, on each stream of ``Call/events()``; ``CallDelegate``'s
/// methods are the same events as callbacks ("Twilio Voice SDK: TVOCall", `TVOCallDelegate`).
public enum CallEvent: Sendable {
    /// `callDidStartRinging`: the callee is being alerted; ``Call/sid`` is known from now on.
    case ringing
    /// `callDidConnect`: media flows.
    case connected
    /// `call(_:didFailToConnectWithError:)`: the call ended before it connected.
    case failedToConnect(PreflightError)
    /// `call(_:didDisconnectWithError:)`: the call ended; `nil` when a party hung up normally.
    case disconnected(PreflightError?)
    /// `call(_:isReconnectingWithError:)`: signaling (53001) or media (53405) was lost and is
    /// being recovered.
    case reconnecting(PreflightError)
    /// `callDidReconnect`: the lost connection recovered.
    case reconnected
    /// `call(_:didReceiveQualityWarnings:previousWarnings:)`: the set of active warnings changed.
    case qualityWarnings(current: Set<QualityWarning>, previous: Set<QualityWarning>)
    /// A user-defined message from the other party (``CallMessageDelegate``'s `messageReceived`).
    case messageReceived(CallMessage)
    /// The edge delivered the message with this id (``Call/sendMessage(_:)``'s result).
    case messageSent(id: String)
    /// The message with this id was not delivered: 31209 over 10 KB, 31210 not a
    /// user-defined message, 31211 not connected, 70107 more than 10 in a minute.
    case messageFailed(id: String, error: PreflightError)
    /// The other party sent a DTMF digit (`0`–`9`, `*`, `#`) with ``Call/sendDigits(_:)``,
    /// received as an RFC 4733 telephone event.
    case digitReceived(Character)
    /// A one-second stats sample of the call (the preflight test's ``StatsSample``), for live
    /// displays; not a Twilio callback.
    case sample(StatsSample)

    /// Whether the event ends the call's stream.
    public var isFinal: Bool {
        switch self {
        case .failedToConnect, .disconnected: true
        default: false
        }
    }
}
