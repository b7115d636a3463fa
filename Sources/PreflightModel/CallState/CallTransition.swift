/// What one ``CallStateMachine/handle(_:)`` call did.
package struct CallTransition: Sendable, Equatable {
    /// The state after the event.
    package var state: CallState
    /// Every state entered, in order (`[.ringing, .connected]` when a caller without
    /// answerOnBridge starts ringing); empty when the state did not change.
    package var stateChanges: [CallState]
    /// The delegate callbacks to deliver, in order.
    package var callbacks: [CallCallback]
    /// The Insights `connection` events to report, in order.
    package var insights: [CallInsightsEvent]

    /// Creates a transition.
    package init(
        state: CallState,
        stateChanges: [CallState] = [],
        callbacks: [CallCallback] = [],
        insights: [CallInsightsEvent] = []
    ) {
        self.state = state
        self.stateChanges = stateChanges
        self.callbacks = callbacks
        self.insights = insights
    }

    /// Whether the event was ignored: no state change, no callback and no Insights event.
    package var isIgnored: Bool { stateChanges.isEmpty && callbacks.isEmpty && insights.isEmpty }

    /// Whether the event ended the call (it failed to connect or disconnected).
    package var endsTheCall: Bool { stateChanges.contains(.disconnected) }
}
