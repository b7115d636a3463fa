import PreflightCore
import Testing

/// Errors used as end reasons; codes are Twilio's (TVOErrorSignalingConnectionDisconnectedError
/// 53001, TVOErrorMediaConnectionError 53405, a connection failure 31005).
enum CallErrors {
    static let signalingLost = PreflightError(code: .init(53001), message: "signaling connection disconnected")
    static let mediaLost = PreflightError(code: .init(53405), message: "media connection failed")
    static let connectFailed = PreflightError(code: .init(31005), message: "connection error")
}

/// One row of the scenario tables of "Twilio Voice SDK: TVOCall": events in, exact callbacks and states out.
struct CallScenario: Sendable, CustomStringConvertible {
    var description: String
    var role: CallRole
    var answerOnBridge = false
    var events: [CallStateInput]
    var callbacks: [CallCallback]
    /// Every state the call is in, starting with the initial `connecting`.
    var states: [CallState]

    /// Runs the events through a fresh machine; returns the callbacks and the states visited.
    func run() -> (callbacks: [CallCallback], states: [CallState], insights: [CallInsightsEvent]) {
        var machine = CallStateMachine(role: role, answerOnBridge: answerOnBridge)
        var callbacks: [CallCallback] = []
        var states = [machine.state]
        var insights: [CallInsightsEvent] = []
        for event in events {
            let t = machine.handle(event)
            callbacks += t.callbacks
            states += t.stateChanges
            insights += t.insights
            #expect(t.state == machine.state)
        }
        return (callbacks, states, insights)
    }
}

/// The four end reasons of those tables' last rows, as seen by each role.
enum EndReason: CaseIterable {
    case callerDisconnects, calleeDisconnects, onDeviceError, errorBetweenParties

    func event(for role: CallRole) -> CallStateInput {
        switch self {
        case .callerDisconnects: role == .caller ? .localDisconnect : .remoteHangup
        case .calleeDisconnects: role == .callee ? .localDisconnect : .remoteHangup
        case .onDeviceError: .failed(CallErrors.signalingLost)
        case .errorBetweenParties: .failed(CallErrors.mediaLost)
        }
    }

    var callback: CallCallback {
        switch self {
        case .callerDisconnects, .calleeDisconnects: .didDisconnect(nil)
        case .onDeviceError: .didDisconnect(CallErrors.signalingLost)
        case .errorBetweenParties: .didDisconnect(CallErrors.mediaLost)
        }
    }
}

@Suite struct CallStateMachineScenarioTests {
    static let callerRows: [CallScenario] = {
        var rows = [
            CallScenario(description: "caller disconnects before ringing", role: .caller,
                         events: [.localDisconnect], callbacks: [.didDisconnect(nil)],
                         states: [.connecting, .disconnected]),
            // Without answerOnBridge a ringing call connects at once, so "ringing but not connected"
            // exists only with answerOnBridge.
            CallScenario(description: "caller disconnects while ringing", role: .caller, answerOnBridge: true,
                         events: [.ringing, .localDisconnect], callbacks: [.didStartRinging, .didDisconnect(nil)],
                         states: [.connecting, .ringing, .disconnected]),
            CallScenario(description: "fails to connect before ringing", role: .caller,
                         events: [.failed(CallErrors.connectFailed)],
                         callbacks: [.didFailToConnect(CallErrors.connectFailed)],
                         states: [.connecting, .disconnected]),
            CallScenario(description: "fails to connect after ringing", role: .caller, answerOnBridge: true,
                         events: [.ringing, .failed(CallErrors.connectFailed)],
                         callbacks: [.didStartRinging, .didFailToConnect(CallErrors.connectFailed)],
                         states: [.connecting, .ringing, .disconnected]),
        ]
        for reason in EndReason.allCases {
            rows.append(CallScenario(description: "connected, then \(reason)", role: .caller,
                                     events: [.ringing, reason.event(for: .caller)],
                                     callbacks: [.didStartRinging, .didConnect, reason.callback],
                                     states: [.connecting, .ringing, .connected, .disconnected]))
            rows.append(CallScenario(description: "answerOnBridge: answered, then \(reason)", role: .caller,
                                     answerOnBridge: true,
                                     events: [.ringing, .answered, reason.event(for: .caller)],
                                     callbacks: [.didStartRinging, .didConnect, reason.callback],
                                     states: [.connecting, .ringing, .connected, .disconnected]))
        }
        return rows
    }()

    static let calleeRows: [CallScenario] = {
        var rows = [
            CallScenario(description: "callee disconnects before connected", role: .callee,
                         events: [.localDisconnect], callbacks: [.didDisconnect(nil)],
                         states: [.connecting, .disconnected]),
            CallScenario(description: "accepted invite fails to connect", role: .callee,
                         events: [.failed(CallErrors.connectFailed)],
                         callbacks: [.didFailToConnect(CallErrors.connectFailed)],
                         states: [.connecting, .disconnected]),
        ]
        for reason in EndReason.allCases {
            rows.append(CallScenario(description: "callee connected, then \(reason)", role: .callee,
                                     events: [.ringing, reason.event(for: .callee)],
                                     callbacks: [.didStartRinging, .didConnect, reason.callback],
                                     states: [.connecting, .ringing, .connected, .disconnected]))
        }
        return rows
    }()

    @Test(arguments: callerRows)
    func callerScenario(_ scenario: CallScenario) {
        let result = scenario.run()
        #expect(result.callbacks == scenario.callbacks)
        #expect(result.states == scenario.states)
    }

    @Test(arguments: calleeRows)
    func calleeScenario(_ scenario: CallScenario) {
        let result = scenario.run()
        #expect(result.callbacks == scenario.callbacks)
        #expect(result.states == scenario.states)
    }

    @Test func tablesHaveEveryRow() {
        // Caller: 4 rows + the 5th for 4 reasons (and its answerOnBridge twin); callee: 2 + 4.
        #expect(Self.callerRows.count == 4 + 4 * 2)
        #expect(Self.calleeRows.count == 2 + 4)
    }
}

@Suite struct CallStateMachineTransitionTests {
    @Test func callerWithoutAnswerOnBridgeConnectsRightAfterRinging() {
        var machine = CallStateMachine(role: .caller)
        let t = machine.handle(.ringing)
        #expect(t == CallTransition(state: .connected, stateChanges: [.ringing, .connected],
                                    callbacks: [.didStartRinging, .didConnect], insights: [.ringing, .connected]))
        // The remote's later answer changes nothing.
        #expect(machine.handle(.answered).isIgnored)
        #expect(machine.state == .connected)
    }

    @Test func callerWithAnswerOnBridgeWaitsForTheAnswer() {
        var machine = CallStateMachine(role: .caller, answerOnBridge: true)
        let ringing = machine.handle(.ringing)
        #expect(ringing == CallTransition(state: .ringing, stateChanges: [.ringing], callbacks: [.didStartRinging],
                                          insights: [.ringing]))
        let answered = machine.handle(.answered)
        #expect(answered == CallTransition(state: .connected, stateChanges: [.connected], callbacks: [.didConnect],
                                           insights: [.connected]))
    }

    @Test func answerWithoutRingingPassesThroughRinging() {
        var machine = CallStateMachine(role: .caller, answerOnBridge: true)
        let t = machine.handle(.answered)
        #expect(t.stateChanges == [.ringing, .connected])
        #expect(t.callbacks == [.didStartRinging, .didConnect])
        // accepted-by-remote is the run's, stamped when the answer arrives: not the machine's.
        #expect(t.insights == [.ringing, .connected])
    }

    @Test func calleeIgnoresAnswerOnBridge() {
        var machine = CallStateMachine(role: .callee, answerOnBridge: true)
        #expect(machine.handle(.ringing).callbacks == [.didStartRinging, .didConnect])
        #expect(machine.state == .connected)
    }

    @Test func disconnectTwiceGivesOneCallback() {
        var machine = CallStateMachine(role: .caller)
        _ = machine.handle(.ringing)
        let first = machine.handle(.localDisconnect)
        #expect(first.callbacks == [.didDisconnect(nil)])
        #expect(first.insights == [.disconnectCalled, .disconnectedByLocal])
        let second = machine.handle(.localDisconnect)
        #expect(second.isIgnored)
        #expect(second.state == .disconnected)
    }

    static let everyEvent: [CallStateInput] = [
        .ringing, .answered, .localDisconnect, .remoteHangup, .failed(CallErrors.connectFailed),
        .connectionInterrupted(CallErrors.mediaLost), .reconnected, .mute(true), .mute(false), .hold(true),
        .hold(false),
    ]

    @Test(arguments: everyEvent)
    func disconnectedIgnoresEverything(_ event: CallStateInput) {
        for role in CallRole.allCases {
            var machine = CallStateMachine(role: role)
            _ = machine.handle(.ringing)
            _ = machine.handle(.remoteHangup)
            #expect(machine.handle(event).isIgnored)
            #expect(machine.state == .disconnected)
        }
    }

    @Test func reconnectsAfterSignalingThenMediaLoss() {
        // Twilio's example: one network change, two independent recoveries.
        let scenario = CallScenario(
            description: "signaling then media reconnect", role: .caller,
            events: [.ringing, .connectionInterrupted(CallErrors.signalingLost), .reconnected,
                     .connectionInterrupted(CallErrors.mediaLost), .reconnected],
            callbacks: [.didStartRinging, .didConnect, .isReconnecting(CallErrors.signalingLost), .didReconnect,
                        .isReconnecting(CallErrors.mediaLost), .didReconnect],
            states: [.connecting, .ringing, .connected, .reconnecting, .connected, .reconnecting, .connected])
        let result = scenario.run()
        #expect(result.callbacks == scenario.callbacks)
        #expect(result.states == scenario.states)
        #expect(result.insights == [.ringing, .connected, .reconnecting, .reconnected, .reconnecting, .reconnected])
    }

    @Test func failingWhileReconnectingDisconnectsWithTheError() {
        var machine = CallStateMachine(role: .caller)
        _ = machine.handle(.ringing)
        _ = machine.handle(.connectionInterrupted(CallErrors.mediaLost))
        let t = machine.handle(.failed(CallErrors.mediaLost))
        #expect(t == CallTransition(state: .disconnected, stateChanges: [.disconnected],
                                    callbacks: [.didDisconnect(CallErrors.mediaLost)], insights: [.error]))
    }

    @Test func hangingUpWhileReconnecting() {
        var machine = CallStateMachine(role: .callee)
        _ = machine.handle(.ringing)
        _ = machine.handle(.connectionInterrupted(CallErrors.signalingLost))
        let t = machine.handle(.remoteHangup)
        #expect(t.callbacks == [.didDisconnect(nil)])
        #expect(t.insights == [.disconnectedByRemote])
    }

    @Test func endReasonInsights() {
        let expected: [(CallStateInput, [CallInsightsEvent])] = [
            (.localDisconnect, [.disconnectCalled, .disconnectedByLocal]),
            (.remoteHangup, [.disconnectedByRemote]),
            (.failed(CallErrors.signalingLost), [.error]),
        ]
        for (event, insights) in expected {
            var connected = CallStateMachine(role: .caller)
            _ = connected.handle(.ringing)
            #expect(connected.handle(event).insights == insights)
            var connecting = CallStateMachine(role: .caller)
            #expect(connecting.handle(event).insights == insights)
        }
    }

    @Test func muteAndHoldWhileConnected() {
        var machine = CallStateMachine(role: .caller)
        _ = machine.handle(.ringing)
        #expect(machine.handle(.mute(true)) == CallTransition(state: .connected, insights: [.muted]))
        #expect(machine.isMuted)
        #expect(machine.handle(.mute(true)).isIgnored)
        #expect(machine.handle(.hold(true)) == CallTransition(state: .connected, insights: [.hold]))
        #expect(machine.isOnHold)
        #expect(machine.handle(.hold(false)).insights == [.unhold])
        #expect(machine.handle(.mute(false)).insights == [.unmuted])
        #expect(!machine.isMuted && !machine.isOnHold)
    }

    /// (how to get there, event that must be ignored there).
    static let wrongStateEvents: [(String, [CallStateInput], CallStateInput)] = [
        ("connecting", [], .reconnected),
        ("connecting", [], .mute(true)),
        ("connecting", [], .hold(true)),
        ("connecting", [], .connectionInterrupted(CallErrors.mediaLost)),
        ("ringing", [.ringing], .ringing),
        ("ringing", [.ringing], .mute(true)),
        ("ringing", [.ringing], .hold(true)),
        ("ringing", [.ringing], .reconnected),
        ("ringing", [.ringing], .connectionInterrupted(CallErrors.mediaLost)),
        ("connected", [.ringing, .answered], .ringing),
        ("connected", [.ringing, .answered], .answered),
        ("connected", [.ringing, .answered], .reconnected),
        ("connected", [.ringing, .answered], .mute(false)),
        ("connected", [.ringing, .answered], .hold(false)),
        ("reconnecting", [.ringing, .answered, .connectionInterrupted(CallErrors.signalingLost)], .mute(true)),
        ("reconnecting", [.ringing, .answered, .connectionInterrupted(CallErrors.signalingLost)], .hold(true)),
        ("reconnecting", [.ringing, .answered, .connectionInterrupted(CallErrors.signalingLost)], .ringing),
        ("reconnecting", [.ringing, .answered, .connectionInterrupted(CallErrors.signalingLost)], .answered),
        ("reconnecting", [.ringing, .answered, .connectionInterrupted(CallErrors.signalingLost)],
         .connectionInterrupted(CallErrors.mediaLost)),
    ]

    @Test(arguments: wrongStateEvents)
    func eventsInTheWrongStateAreIgnored(stateName: String, setup: [CallStateInput], event: CallStateInput) throws {
        var machine = CallStateMachine(role: .caller, answerOnBridge: true)
        for e in setup { _ = machine.handle(e) }
        #expect(machine.state.rawValue == stateName)
        let before = machine
        let t = machine.handle(event)
        #expect(t.isIgnored)
        #expect(t.state == before.state)
        #expect(machine.state == before.state)
        #expect(machine.isMuted == before.isMuted && machine.isOnHold == before.isOnHold)
    }

    @Test func insightsRawValuesAreTheSeedNames() {
        #expect(CallInsightsEvent.allCases.map(\.rawValue) == [
            "muted", "unmuted", "accepted-by-remote", "ringing", "connected", "disconnect-called",
            "disconnected-by-local", "disconnected-by-remote", "hold", "unhold", "error", "reconnecting",
            "reconnected",
        ])
    }

    @Test func errorEqualityComparesCodeAndMessage() {
        #expect(CallCallback.didDisconnect(CallErrors.mediaLost) != .didDisconnect(CallErrors.signalingLost))
        #expect(CallCallback.didDisconnect(CallErrors.mediaLost) != .didDisconnect(nil))
        #expect(CallStateInput.failed(CallErrors.mediaLost) == .failed(
            PreflightError(code: .init(53405), message: "media connection failed")))
    }
}
