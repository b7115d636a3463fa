import Logging
import PreflightCore
@testable import PreflightNIO
import Testing

/// A response that arrives before its request began waiting is not lost: the wait takes it (the
/// edge on loopback can answer `register` before `register()` registers its wait).
@Suite struct SignalingClientEarlyResponseTests {
    static func client() -> SignalingClient {
        SignalingClient(
            configuration: SignalingClientConfiguration(url: "ws://127.0.0.1:9/signaling", accessToken: "x"),
            logger: Logger(label: "test"))
    }

    @Test func anEarlyResponseIsTakenByTheWaitThatFollows() async throws {
        let client = Self.client()
        client.route(.registered(identity: "bob"))
        let message = try await client.wait(for: .registered, until: .now + .seconds(1))
        #expect(message == .registered(identity: "bob"))
        // Taken once.
        await #expect(throws: PreflightError.self) { _ = try await client.wait(for: .registered, until: .now + .milliseconds(50)) }
    }

    @Test func anAnswerThatOutrunsTheInvitesWaitIsKeptAndToldToTheEvents() async throws {
        let client = Self.client()
        let answer = SignalingMessage.answer(.init(callSid: "CA1", ice: ICEParameters(ufrag: "edge", pwd: "abcdefghijklmnopqrstuv", lite: true), codec: "PCMU", payloadType: 0))
        client.route(answer)
        #expect(try await client.wait(for: .answer, until: .now + .seconds(1)) == answer)
        var events = client.events.makeAsyncIterator()
        guard case .message(let told)? = await events.next() else {
            Issue.record("the answer was not told to the events")
            return
        }
        #expect(told == answer)
    }

    @Test func anEarlyRefusalFailsTheWaitThatFollowsWithItsCode() async throws {
        let client = Self.client()
        client.route(.error(.init(code: 20106, message: "no incoming grant")))
        let error = await #expect(throws: PreflightError.self) { _ = try await client.wait(for: .registered, until: .now + .seconds(1)) }
        #expect(error?.code == .invalidAccessTokenGrants)
    }
}
