import Foundation
import Preflight
import PreflightEdge
import Testing

/// User-defined call messages between the parties, and their limits.
@Suite(.serialized) struct CallMessageTests {
    /// What `pick` makes of the first event of `stream` it accepts, at most 30 s away.
    static func first<T: Sendable>(_ stream: AsyncStream<CallEvent>, _ pick: @Sendable @escaping (CallEvent) -> T?) async -> T? {
        await PreflightTests.first(in: stream) { pick($0) != nil }.flatMap(pick)
    }

    @Test func messagesGoBothWaysAndTheSenderLearnsTheyWent() async throws {
        try await CallHarness.withEdge { harness in
            let call = try await harness.connectedCall()
            let (alice, callee, bob) = (call.caller, call.callee, call.bob)
            let aliceEvents = alice.events()
            let bobEvents = callee.events()
            let id = alice.sendMessage(CallMessage(content: #"{"hello":"bob"}"#))
            #expect(id.hasPrefix("KX") && id.count == 34)
            let received = await Self.first(bobEvents) { event -> CallMessage? in
                if case .messageReceived(let message) = event { return message }
                return nil
            }
            #expect(received == CallMessage(content: #"{"hello":"bob"}"#))
            let sent = await Self.first(aliceEvents) { event -> String? in
                if case .messageSent(let sentID) = event { return sentID }
                return nil
            }
            #expect(sent == id)
            callee.sendMessage(CallMessage(content: "hi alice", contentType: "text/plain"))
            let reply = await Self.first(aliceEvents) { event -> CallMessage? in
                if case .messageReceived(let message) = event { return message }
                return nil
            }
            #expect(reply?.content == "hi alice")
            #expect(reply?.contentType == "text/plain")
            alice.disconnect()
            await callee.endingError()
            await bob.unregister()
        }
    }

    @Test func messagesOverTheLimitsFailWithTheirCodes() async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let alice = try await harness.connect(to: "client:bob", answerOnBridge: true)
            _ = try #require(await next(invites)?.invite)
            #expect(await alice.wait(for: .ringing))
            func failure(_ message: CallMessage) async -> PreflightError.Code? {
                let events = alice.events()
                let id = alice.sendMessage(message)
                return await Self.first(events) { event -> PreflightError.Code? in
                    if case .messageFailed(let failedID, let error) = event, failedID == id { return error.code }
                    return nil
                }
            }
            // Ringing is not connected.
            #expect(await failure(CallMessage(content: "{}")) == .callMessageUnexpectedState)
            alice.disconnect()
            await bob.unregister()
        }
        try await CallHarness.withEdge { harness in
            let call = try await harness.connectedCall()
            let (alice, callee, bob) = (call.caller, call.callee, call.bob)
            func outcome(_ message: CallMessage) async -> PreflightError.Code?? {
                let events = alice.events()
                let id = alice.sendMessage(message)
                return await Self.first(events) { event -> PreflightError.Code?? in
                    switch event {
                    case .messageFailed(let failedID, let error) where failedID == id: return .some(error.code)
                    case .messageSent(let sentID) where sentID == id: return .some(nil)
                    default: return nil
                    }
                }
            }
            #expect(await outcome(CallMessage(content: String(repeating: "x", count: 10 * 1024 + 1))) == .some(.callMessageTooLarge))
            #expect(await outcome(CallMessage(content: "{}", messageType: "other")) == .some(.callMessageTypeInvalid))
            for _ in 0..<10 {
                #expect(await outcome(CallMessage(content: String(repeating: "y", count: 10 * 1024))) == .some(nil))
            }
            #expect(await outcome(CallMessage(content: "{}")) == .some(.callMessageRateLimited))
            alice.disconnect()
            await callee.endingError()
            await bob.unregister()
        }
    }
}
