/// The lifecycle of a call (`TVOCall`, "Twilio Voice SDK: TVOCall") as a pure transition function.
///
/// Feed it ``CallStateInput``s; each ``handle(_:)`` returns the new state, the states entered, the
/// `TVOCallDelegate` callbacks to deliver and the Insights `connection` events to report. It reads
/// no clock and does no I/O.
///
/// Rules, from Twilio's tables and text:
/// - Every call starts in ``CallState/connecting`` and ends in ``CallState/disconnected``; every
///   connected call passes through ``CallState/ringing`` first.
/// - Caller, answerOnBridge false (the default): "callDidConnect will be emitted immediately after
///   callDidStartRinging", so ``CallStateInput/ringing`` enters ringing then connected.
///   Caller, answerOnBridge true: "emit the callDidConnect callback only until the call is
///   answered", so connected waits for ``CallStateInput/answered``.
/// - Callee: it has accepted the invite, so as for a caller without answerOnBridge ``CallStateInput/ringing``
///   connects at once (Twilio's callee rows: didStartRinging, didConnect); `answerOnBridge`, a
///   caller-side TwiML flag, is ignored.
/// - Disconnecting before connected gives didDisconnect (no error); a fatal error before connected
///   gives didFailToConnect, after it didDisconnect with the error.
/// - "[TVOCall disconnect] is an idempotent operation": in disconnected every event is ignored.
/// - Mute and hold "only take effect if the state is TVOCallStateConnected" (during reconnecting
///   they are "undefined behavior"): elsewhere they are ignored, as is a mute or hold that does not
///   change the current value.
/// - "the SDK will always raise a call:isReconnectingWithError: callback followed by a
///   callDidReconnect: callback when reconnection is successful"; signaling and media recover
///   independently, so one network change may give two such pairs.
///
/// Choices where Twilio's document is silent:
/// - ``CallStateInput/answered`` while connecting (no ringing seen) passes through ringing, keeping the
///   documented connecting → ringing → connected sequence, and is ignored once connected.
/// - `accepted-by-remote` ("Server returns an answer to the Client's offer over the signaling
///   channel") is not a state change: the call's run reports it when the answer arrives, before
///   ICE connects the call (and even when ICE then fails), so the machine does not.
/// - ``CallStateInput/remoteHangup`` before connected (the remote rejected or never answered) is a
///   didDisconnect without error, reported as `disconnected-by-remote`.
/// - ``CallStateInput/connectionInterrupted(_:)`` is ignored before connected (that is a failure to
///   connect, given as ``CallStateInput/failed(_:)``) and while already reconnecting (one pair of
///   callbacks per interruption).
/// - A fatal error reports the Insights `error` event only, not `disconnected-by-*`.
package struct CallStateMachine: Sendable, Hashable {
    /// Which side of the call this device is.
    package let role: CallRole
    /// The TwiML `<Dial answerOnBridge>` flag; only affects a caller.
    package let answerOnBridge: Bool
    /// The current state.
    package private(set) var state: CallState = .connecting
    /// Whether the audio input is muted (changed only while connected).
    package private(set) var isMuted = false
    /// Whether the call is on hold (changed only while connected).
    package private(set) var isOnHold = false

    /// Creates a machine in ``CallState/connecting``.
    /// - Parameters:
    ///   - role: caller (placed the call) or callee (accepted an invite).
    ///   - answerOnBridge: for a caller, wait for ``CallStateInput/answered`` before connecting.
    package init(role: CallRole, answerOnBridge: Bool = false) {
        self.role = role
        self.answerOnBridge = answerOnBridge
    }

    /// Whether ringing connects the call at once.
    private var connectsOnRinging: Bool { role == .callee || !answerOnBridge }

    /// Applies `event` and says what happened; an event that does not apply in the current state
    /// returns an ignored transition (``CallTransition/isIgnored``) and changes nothing.
    package mutating func handle(_ event: CallStateInput) -> CallTransition {
        var t = CallTransition(state: state)
        switch (state, event) {
        case (.disconnected, _):
            break

        case (.connecting, .ringing):
            enter(.ringing, &t)
            t.callbacks.append(.didStartRinging)
            t.insights.append(.ringing)
            if connectsOnRinging {
                enter(.connected, &t)
                t.callbacks.append(.didConnect)
                t.insights.append(.connected)
            }

        case (.connecting, .answered), (.ringing, .answered):
            if state == .connecting {
                enter(.ringing, &t)
                t.callbacks.append(.didStartRinging)
                t.insights.append(.ringing)
            }
            enter(.connected, &t)
            t.callbacks.append(.didConnect)
            t.insights.append(.connected)

        case (_, .localDisconnect):
            enter(.disconnected, &t)
            t.callbacks.append(.didDisconnect(nil))
            t.insights.append(contentsOf: [.disconnectCalled, .disconnectedByLocal])

        case (_, .remoteHangup):
            enter(.disconnected, &t)
            t.callbacks.append(.didDisconnect(nil))
            t.insights.append(.disconnectedByRemote)

        case (.connecting, .failed(let error)), (.ringing, .failed(let error)):
            enter(.disconnected, &t)
            t.callbacks.append(.didFailToConnect(error))
            t.insights.append(.error)

        case (.connected, .failed(let error)), (.reconnecting, .failed(let error)):
            enter(.disconnected, &t)
            t.callbacks.append(.didDisconnect(error))
            t.insights.append(.error)

        case (.connected, .connectionInterrupted(let error)):
            enter(.reconnecting, &t)
            t.callbacks.append(.isReconnecting(error))
            t.insights.append(.reconnecting)

        case (.reconnecting, .reconnected):
            enter(.connected, &t)
            t.callbacks.append(.didReconnect)
            t.insights.append(.reconnected)

        case (.connected, .mute(let muted)) where muted != isMuted:
            isMuted = muted
            t.insights.append(muted ? .muted : .unmuted)

        case (.connected, .hold(let onHold)) where onHold != isOnHold:
            isOnHold = onHold
            t.insights.append(onHold ? .hold : .unhold)

        default:
            break
        }
        return t
    }

    /// Moves to `next` and records the change in `t`.
    private mutating func enter(_ next: CallState, _ t: inout CallTransition) {
        state = next
        t.state = next
        t.stateChanges.append(next)
    }
}
