import Foundation
import PreflightModel
import Synchronization

extension Call {
    /// Feeds the state machine and delivers its callbacks as events, in order.
    /// - Returns: the transition (ignored when the input does not apply now).
    @discardableResult
    func apply(_ input: CallStateInput) -> CallTransition {
        let (transition, finished) = storage.withLock { state -> (CallTransition, [AsyncStream<CallEvent>.Continuation]) in
            let transition = state.machine.handle(input)
            state.states.append(contentsOf: transition.stateChanges)
            let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
            for event in transition.insights {
                var payload: [String: String] = [:]
                if event == .error, case .failed(let error) = input {
                    payload = ["code": "\(error.code.rawValue)", "message": String(error.message.prefix(InsightsEvent.maximumValueLength))]
                }
                state.insights.append(InsightsEvent(.connection, event.rawValue, timestamp: now, payload: payload))
            }
            var finished: [AsyncStream<CallEvent>.Continuation] = []
            for callback in transition.callbacks {
                let event: CallEvent = switch callback {
                case .didStartRinging: .ringing
                case .didConnect: .connected
                case .didFailToConnect(let error): .failedToConnect(error)
                case .didDisconnect(let error): .disconnected(error)
                case .isReconnecting(let error): .reconnecting(error)
                case .didReconnect: .reconnected
                }
                if event.isFinal {
                    finished += state.subscribers.end(with: event) ?? []
                } else {
                    state.subscribers.yield(event)
                }
            }
            return (transition, finished)
        }
        // Finishing runs onTermination, which takes the lock: outside it.
        for continuation in finished { continuation.finish() }
        return transition
    }

    /// Delivers an event that is not a state change (a sample, warnings) while the call lives.
    func emit(_ event: CallEvent) {
        storage.withLock { state in
            guard state.subscribers.terminal == nil else { return }
            switch event {
            case .sample(let sample): state.latestSample = sample
            case .qualityWarnings(let current, _): state.warnings = current
            default: break
            }
            state.subscribers.yield(event)
        }
    }

    /// Takes the `connection` events the state machine reported since the last call.
    func takeInsights() -> [InsightsEvent] {
        storage.withLock { state in
            defer { state.insights.removeAll() }
            return state.insights
        }
    }

    func update(sid: String) {
        storage.withLock { if $0.sid == nil { $0.sid = sid } }
    }

    var isDisconnected: Bool { storage.withLock { $0.machine.state == .disconnected } }
}
