import Foundation
import PreflightModel
import Synchronization

extension Call {
    /// Feeds the state machine and delivers its callbacks as events, in order.
    /// - Parameter record: a network change to record if the input ends the call (before its
    ///   result is in).
    /// - Returns: the transition (ignored when the input does not apply now).
    @discardableResult
    func apply(_ input: CallStateInput, recordingAtTheEnd record: NetworkChangeRecord? = nil) -> CallTransition {
        handle.apply { state, step in
            let transition = state.machine.handle(input)
            state.states.append(contentsOf: transition.stateChanges)
            if let record, transition.endsTheCall { state.networkChanges.append(record) }
            let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
            for event in transition.insights {
                var payload: [String: String] = [:]
                if event == .error, case .failed(let error) = input {
                    payload = ["code": "\(error.code.rawValue)", "message": String(error.message.prefix(InsightsEvent.maximumValueLength))]
                }
                state.insights.append(InsightsEvent(.connection, event.rawValue, timestamp: now, payload: payload))
            }
            for callback in transition.callbacks where step.outcome == nil {
                let event: CallEvent = switch callback {
                case .didStartRinging: .ringing
                case .didConnect: .connected
                case .didFailToConnect(let error): .failedToConnect(error)
                case .didDisconnect(let error): .disconnected(error)
                case .isReconnecting(let error): .reconnecting(error)
                case .didReconnect: .reconnected
                }
                step.events.append(event)
                // The final event ends the call: its error is the call's result.
                switch event {
                case .failedToConnect(let error): step.outcome = .failure(error)
                case .disconnected(let error?): step.outcome = .failure(error)
                case .disconnected(nil): step.outcome = .success(())
                default: break
                }
            }
            return transition
        }
    }

    /// Delivers an event that is not a state change (a sample, warnings) while the call lives.
    func emit(_ event: CallEvent) {
        handle.emit { state in
            switch event {
            case .sample(let sample): state.latestSample = sample
            case .qualityWarnings(let current, _): state.warnings = current
            default: break
            }
            return event
        }
    }

    /// Takes the `connection` events the state machine reported since the last call.
    func takeInsights() -> [InsightsEvent] {
        handle.withLock { state in
            defer { state.insights.removeAll() }
            return state.insights
        }
    }

    func update(sid: String) {
        handle.withLock { if $0.sid == nil { $0.sid = sid } }
    }

    var isDisconnected: Bool { handle.withLock { $0.machine.state == .disconnected } }
}
