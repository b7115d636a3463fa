import Foundation
import Preflight
import PreflightEdge
import PreflightTesting
import Testing

/// Every row of the caller and callee tables of "Twilio Voice SDK: TVOCall", end to end: two SDK
/// parties through a real `preflight serve` process, each row's callbacks and state transitions
/// exactly as the table lists them.
@Suite(.realTime, .serialized) struct CallLifecycleTests {
    static let connected: [CallState] = [.connecting, .ringing, .connected, .disconnected]
    static let connectedCallbacks = ["callDidStartRinging", "callDidConnect", "didDisconnectWithError"]

    // MARK: Caller table

    @Test func callerDisconnectsBeforeRinging() async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let recorder = CallbackRecorder()
            let call = try await harness.connect(to: "client:bob", answerOnBridge: true, delegate: recorder)
            call.disconnect()
            #expect(await call.endingError() == nil)
            await recorder.wait(for: 1)
            #expect(recorder.callbacks == ["didDisconnectWithError"])
            #expect(call.states == [.connecting, .disconnected])
            #expect(call.sid == nil)
            // The edge never rang bob, or stopped at once: no invite stays ringing.
            if let invite = await next(invites, within: .seconds(2))?.invite {
                #expect(await next(invites, within: .seconds(3))?.cancelled?.0.callSid == invite.callSid)
            }
            await bob.unregister()
        }
    }

    @Test func callerDisconnectsWhileRinging() async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let recorder = CallbackRecorder()
            let call = try await harness.connect(to: "client:bob", answerOnBridge: true, delegate: recorder)
            let invite = try #require(await next(invites)?.invite)
            #expect(await call.wait(for: .ringing))
            #expect(call.sid == invite.callSid)
            #expect(invite.from == "client:alice")
            #expect(invite.to == "client:bob")
            call.disconnect()
            await recorder.wait(for: 2)
            #expect(recorder.callbacks == ["callDidStartRinging", "didDisconnectWithError"])
            #expect(recorder.finalError == nil)
            #expect(call.states == [.connecting, .ringing, .disconnected])
            let (cancelled, _) = try #require(await next(invites)?.cancelled)
            #expect(cancelled.callSid == invite.callSid)
            await bob.unregister()
        }
    }

    @Test(arguments: [
        ("client:nobody", PreflightError.Code.calleeUnavailable),
        ("+15550100", PreflightError.Code.calleeNotFound),
    ])
    func callFailsBeforeRinging(to: String, code: PreflightError.Code) async throws {
        try await CallHarness.withEdge { harness in
            let recorder = CallbackRecorder()
            let call = try await harness.connect(to: to, delegate: recorder)
            let error = await call.endingError()
            await recorder.wait(for: 1)
            #expect(error?.code == code, "\(String(describing: error))")
            #expect(recorder.callbacks == ["didFailToConnectWithError"])
            #expect(call.states == [.connecting, .disconnected])
        }
    }

    @Test func callToABusyCalleeFailsBeforeRinging() async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let first = try await harness.connect(from: "carol", to: "client:bob")
            let invite = try #require(await next(invites)?.invite)
            let answered = invite.accept()
            #expect(await answered.wait(for: .connected))
            let recorder = CallbackRecorder()
            let second = try await harness.connect(to: "client:bob", delegate: recorder)
            #expect(await second.endingError()?.code == .calleeBusy)
            await recorder.wait(for: 1)
            #expect(recorder.callbacks == ["didFailToConnectWithError"])
            #expect(second.states == [.connecting, .disconnected])
            first.disconnect()
            #expect(await answered.endingError() == nil)
            await bob.unregister()
        }
    }

    @Test func callFailsAfterRingingWhenTheCalleeRejects() async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let recorder = CallbackRecorder()
            let call = try await harness.connect(to: "client:bob", answerOnBridge: true, delegate: recorder)
            let invite = try #require(await next(invites)?.invite)
            #expect(await call.wait(for: .ringing))
            invite.reject()
            #expect(await call.endingError()?.code == .callRejected)
            await recorder.wait(for: 2)
            #expect(recorder.callbacks == ["callDidStartRinging", "didFailToConnectWithError"])
            #expect(call.states == [.connecting, .ringing, .disconnected])
            await bob.unregister()
        }
    }

    @Test func callFailsAfterRingingWhenNobodyAnswers() async throws {
        try await CallHarness.withEdge(["--ring-timeout", "1"]) { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let recorder = CallbackRecorder()
            let call = try await harness.connect(to: "client:bob", answerOnBridge: true, delegate: recorder)
            let invite = try #require(await next(invites)?.invite)
            #expect(await call.endingError()?.code == .calleeUnavailable)
            await recorder.wait(for: 2)
            #expect(recorder.callbacks == ["callDidStartRinging", "didFailToConnectWithError"])
            #expect(call.states == [.connecting, .ringing, .disconnected])
            let (cancelled, error) = try #require(await next(invites)?.cancelled)
            #expect(cancelled.callSid == invite.callSid)
            #expect(error.code == .calleeUnavailable)
            await bob.unregister()
        }
    }

    /// answerOnBridge false (the default): "callDidConnect will be emitted immediately after
    /// callDidStartRinging": the edge answers the caller at once, so it connects while the callee
    /// still rings. True: the answer, and so the connection, wait for the callee to accept; the
    /// caller's `accepted-by-remote` is stamped when that answer arrived.
    @Test(arguments: [false, true])
    func answerOnBridgeDecidesWhetherTheCallerConnectsBeforeTheCalleeAnswers(answerOnBridge: Bool) async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let caller = try await harness.connect(to: "client:bob", answerOnBridge: answerOnBridge)
            let invite = try #require(await next(invites)?.invite)
            if answerOnBridge {
                #expect(await caller.wait(for: .ringing))
            } else {
                // Nobody has answered yet: the invite still rings on bob's side.
                #expect(await caller.wait(for: .connected))
                #expect(caller.states == [.connecting, .ringing, .connected])
            }
            #expect(caller.state == (answerOnBridge ? .ringing : .connected))
            let beforeAccept = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
            let callee = invite.accept()
            #expect(await caller.wait(for: .connected))
            #expect(await callee.wait(for: .connected))
            #expect(caller.states == [.connecting, .ringing, .connected])
            // The bridge carries the caller's audio to the callee, whenever the caller connected.
            #expect(await callee.sample { $0.packetsReceived > 10 } != nil)
            caller.disconnect()
            #expect(await callee.endingError() == nil)
            let callSid = try #require(caller.sid)
            var accepted: Int64?
            #expect(try await eventually {
                let events = try await CallInsightsTests.events(harness, callSid: callSid).body?.events ?? []
                accepted = events.first { $0.party == "caller" && $0.name == "accepted-by-remote" }?.timestamp
                return accepted != nil
            })
            let answeredAt = try #require(accepted)
            if answerOnBridge {
                #expect(answeredAt >= beforeAccept, "answered at \(answeredAt), accepted at \(beforeAccept)")
            } else {
                #expect(answeredAt <= beforeAccept, "answered at \(answeredAt), accepted at \(beforeAccept)")
            }
            await bob.unregister()
        }
    }

    // MARK: Connected, then ended

    @Test(arguments: [false, true])
    func callerHangsUp(answerOnBridge: Bool) async throws {
        try await connectedCall(answerOnBridge: answerOnBridge) { caller, callee in
            caller.disconnect()
            return (caller, callee)
        }
    }

    @Test(arguments: [false, true])
    func calleeHangsUp(answerOnBridge: Bool) async throws {
        try await connectedCall(answerOnBridge: answerOnBridge) { caller, callee in
            callee.disconnect()
            return (callee, caller)
        }
    }

    /// Places a call from alice to bob, has bob accept, checks both reach connected, lets `end`
    /// end it, and checks both parties' callbacks and states (a normal hangup: no error).
    func connectedCall(
        answerOnBridge: Bool, _ end: @Sendable (Call, Call) async -> (ender: Call, other: Call)
    ) async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let callerRecorder = CallbackRecorder()
            let calleeRecorder = CallbackRecorder()
            let caller = try await harness.connect(to: "client:bob", answerOnBridge: answerOnBridge, delegate: callerRecorder)
            let invite = try #require(await next(invites)?.invite)
            let callee = invite.accept(delegate: calleeRecorder)
            #expect(await caller.wait(for: .connected))
            #expect(await callee.wait(for: .connected))
            #expect(caller.sid == callee.sid)
            // Media flows both ways through the bridge: wait for the counts the checks below need
            // (a busy machine may take longer than their 1.2 s of audio).
            for party in [caller, callee] {
                #expect(await party.wait { call in
                    guard let stats = call.getStats(), let local = stats.localAudioTrackStats.first,
                        let remote = stats.remoteAudioTrackStats.first
                    else { return false }
                    return (call.latestSample?.packetsReceived ?? 0) > 20 && local.packetsSent > 50 && remote.packetsReceived > 40
                })
            }
            // SRTP by default between clients.
            #expect(caller.isMediaEncrypted && callee.isMediaEncrypted)
            // getStats: WebRTC-shaped, both directions, while connected only.
            for party in [caller, callee] {
                let stats = try #require(party.getStats())
                let local = try #require(stats.localAudioTrackStats.first)
                let remote = try #require(stats.remoteAudioTrackStats.first)
                #expect(local.codec == "PCMU" && remote.codec == "PCMU")
                #expect(local.packetsSent > 50 && local.bytesSent > 50 * 172)
                #expect(remote.packetsReceived > 40 && remote.bytesReceived > 40 * 172)
                #expect(remote.packetsLost == 0 && local.packetsLost == 0)
                #expect(local.roundTripTime >= 0 && local.roundTripTime < 1000)  // loopback, in ms; a busy host adds its delays
                #expect(remote.mos > 4)
                #expect(stats.selectedIceCandidatePair?.localCandidate.candidateType == .host)
            }
            let (ender, other) = await end(caller, callee)
            #expect(await ender.endingError() == nil)
            #expect(await other.endingError() == nil)
            await callerRecorder.wait(for: 3)
            await calleeRecorder.wait(for: 3)
            #expect(callerRecorder.callbacks == Self.connectedCallbacks)
            #expect(calleeRecorder.callbacks == Self.connectedCallbacks)
            #expect(caller.states == Self.connected)
            #expect(callee.states == Self.connected)
            #expect(caller.getStats() == nil)
            await bob.unregister()
        }
    }

    // MARK: Callee table

    @Test func calleeDisconnectsBeforeConnected() async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let caller = try await harness.connect(to: "client:bob", answerOnBridge: true)
            let invite = try #require(await next(invites)?.invite)
            let recorder = CallbackRecorder()
            let callee = invite.accept(delegate: recorder)
            callee.disconnect()
            #expect(await callee.endingError() == nil)
            await recorder.wait(for: 1)
            #expect(recorder.callbacks == ["didDisconnectWithError"])
            #expect(callee.states == [.connecting, .disconnected])
            // Its only device gave up: the caller's call fails.
            #expect(await caller.endingError() != nil)
            await bob.unregister()
        }
    }

    @Test func calleeFailsToConnect() async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let caller = try await harness.connect(to: "client:bob", answerOnBridge: true)
            let invite = try #require(await next(invites)?.invite)
            let recorder = CallbackRecorder()
            // Relay candidates only, and no TURN server: nothing to connect media with.
            let callee = invite.accept(
                options: AcceptOptions(callOptions: CallOptions(iceTransportPolicy: .relay, gatheringTimeout: .milliseconds(500))),
                delegate: recorder)
            let error = await callee.endingError()
            #expect(error?.code == .mediaConnectionFailed, "\(String(describing: error))")
            await recorder.wait(for: 1)
            #expect(recorder.callbacks == ["didFailToConnectWithError"])
            #expect(callee.states == [.connecting, .disconnected])
            caller.disconnect()
            await bob.unregister()
        }
    }

    @Test func devicesRingTogetherAndTheFirstAcceptWins() async throws {
        try await CallHarness.withEdge { harness in
            let phone = try await harness.register("bob")
            let laptop = try await harness.register("bob")
            let phoneEvents = phone.events()
            let laptopEvents = laptop.events()
            let caller = try await harness.connect(to: "client:bob", params: ["Topic": "lunch"])
            let onPhone = try #require(await next(phoneEvents)?.invite)
            let onLaptop = try #require(await next(laptopEvents)?.invite)
            #expect(onPhone.callSid == onLaptop.callSid)
            #expect(onPhone.customParameters == ["Topic": "lunch"])
            let callee = onLaptop.accept()
            #expect(await callee.wait(for: .connected))
            let (cancelled, _) = try #require(await next(phoneEvents)?.cancelled)
            #expect(cancelled.callSid == onPhone.callSid)
            // Too late on the phone: that call fails to connect, the laptop's goes on.
            let late = onPhone.accept()
            #expect(await late.endingError() != nil)
            #expect(late.states == [.connecting, .disconnected])
            #expect(callee.state == .connected)
            caller.disconnect()
            #expect(await callee.endingError() == nil)
            await phone.unregister()
            await laptop.unregister()
        }
    }
}

/// The dial application's routing: the route table, and a `To` that names a test application.
@Suite(.serialized) struct CallRoutingTests {
    @Test func aNumberOfTheRouteTableRingsItsClient() async throws {
        try await CallHarness.withEdge(["--route", "+15550100=client:bob"]) { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let caller = try await harness.connect(to: "+15550100")
            let invite = try #require(await next(invites)?.invite)
            #expect(invite.to == "+15550100")
            #expect(invite.from == "client:alice")
            invite.reject()
            #expect(await caller.endingError() != nil)
            await bob.unregister()
        }
    }

    @Test func aCallToTheEchoConnectsAndHearsItself() async throws {
        try await CallHarness.withEdge { harness in
            let recorder = CallbackRecorder()
            let call = try await harness.connect(to: "echo", delegate: recorder)
            #expect(await call.wait(for: .connected))
            // The call hears its own audio: a sample with echoes in it, at the level of the test
            // signal (a sample's level is its last frame's, and the signal has quiet frames).
            let heard = await call.sample { $0.packetsReceived > 20 && $0.audioOutputLevel > 1000 }
            #expect(heard != nil, "no loud echo; latest sample \(String(describing: call.latestSample))")
            // The edge does not encrypt a test application's call: plain RTP.
            #expect(!call.isMediaEncrypted)
            call.disconnect()
            #expect(await call.endingError() == nil)
            await recorder.wait(for: 3)
            #expect(recorder.callbacks == CallLifecycleTests.connectedCallbacks)
        }
    }

    @Test func registeringNeedsTheIncomingGrant() async throws {
        try await CallHarness.withEdge { harness in
            let token = try await harness.edge.callToken(identity: "bob", incomingAllow: false)
            let error = await #expect(throws: PreflightError.self) {
                _ = try await Voice.register(options: RegistrationOptions(accessToken: token, edgeURL: harness.edge.signalingURL))
            }
            #expect(error?.code == .invalidAccessTokenGrants)
        }
    }
}

/// Media encryption is on by default for calls between clients and can be turned off per party.
@Suite(.serialized) struct CallEncryptionTests {
    @Test(arguments: [(true, true), (true, false), (false, true)])
    func eachLegIsEncryptedWhenItsPartyAsks(caller callerEncrypts: Bool, callee calleeEncrypts: Bool) async throws {
        try await CallHarness.withEdge { harness in
            let call = try await harness.connectedCall(
                callerOptions: CallOptions(encryptsMedia: callerEncrypts), calleeOptions: CallOptions(encryptsMedia: calleeEncrypts))
            let (caller, callee, bob) = (call.caller, call.callee, call.bob)
            // Audio flows both ways whatever each leg does: the edge decrypts and re-encrypts per leg.
            func received(_ call: Call) -> Int { call.getStats()?.remoteAudioTrackStats.first?.packetsReceived ?? 0 }
            #expect(
                await eventually { received(caller) > 40 && received(callee) > 40 },
                "packets received: caller \(received(caller)), callee \(received(callee))")
            #expect(caller.isMediaEncrypted == callerEncrypts)
            #expect(callee.isMediaEncrypted == calleeEncrypts)
            #expect((caller.latestSample?.audioOutputLevel ?? 0) >= 0)
            caller.disconnect()
            #expect(await callee.endingError() == nil)
            await bob.unregister()
        }
    }
}
