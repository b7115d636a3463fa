/// What one ``CallStateMachine/handle(_:)`` call did.
public struct CallTransition: Sendable, Equatable {
    /// The state after the event.
    public var state: CallState
    /// Every state entered, in order (`[.ringing, .connected]` when a caller without
    /// answerOnBridge starts ringing); empty when the state did not change.
    public var stateChanges: [CallState]
    /// The delegate callbacks to deliver, in order.
    public var callbacks: [CallCallback]
    /// The Insights `connection` events to report, in order.
    public var insights: [CallInsightsEvent]

    /// Creates a transition.
    public init(
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
    public var isIgnored: Bool { stateChanges.isEmpty && callbacks.isEmpty && insights.isEmpty }
}
