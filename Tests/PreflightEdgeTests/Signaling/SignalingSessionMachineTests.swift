import PreflightCore
import Testing

@testable import PreflightEdge

/// One session's machine alone: sign-in, its limits on a fake clock, the test applications, the
/// probe, parking and resuming, the end. No WebSocket, no socket, no sleep.
@Suite struct SignalingSessionMachineTests {
    typealias Harness = SessionMachineHarness

    static func invite(_ params: [String: String] = [:]) -> SignalingMessage {
        .invite(.init(ice: Harness.clientICE(), codecs: ["PCMU"], params: params))
    }

    /// A session signed in as `identity` that called `application` at `now`.
    static func testCall(
        _ edge: Harness, _ application: String, params: [String: String] = [:], identity: String = "alice", now: Double
    ) -> MachineUnderTest {
        var session = edge.session()
        session.signIn(Harness.claims(identity, application: application))
        session.handle(.message(invite(params)), now: now)
        return session
    }

    @Test func helloIsAnsweredOnceItsTokenIsVerifiedAndTheSessionAdmitted() {
        let edge = Harness()
        var session = edge.session()
        session.handle(.message(.hello(token: "the-token", client: nil)), now: 0)
        guard case .verifyToken("the-token")? = session.effects.last else {
            Issue.record("expected the token to be verified first, got \(session.effects)")
            return
        }
        #expect(session.sent.isEmpty)
        #expect(edge.admissions.total == 0)
        session.handle(.tokenVerified(.success(Harness.claims("alice"))), now: 1)
        guard case .welcome(let welcome)? = session.sent.last else {
            Issue.record("expected a welcome, got \(session.sent)")
            return
        }
        #expect(welcome.edge == "edge-a")
        #expect(welcome.sessionId == session.machine.sessionId)
        #expect(welcome.resumeToken == session.machine.resumeToken)
        #expect(edge.admissions.total == 1)
        // Ready: an unregistered session must invite within the signaling timeout, from now.
        #expect(session.machine.nextDeadline == 1 + edge.configuration.signalingTimeout.inSeconds)
    }

    @Test func aRefusedTokenEndsTheSessionWithItsCodeAndHoldsNothing() {
        let edge = Harness()
        var session = edge.session()
        session.handle(.message(.hello(token: "bad", client: nil)), now: 0)
        session.handle(.tokenVerified(.failure(PreflightError(code: .accessTokenExpired, message: "expired"))), now: 0)
        #expect(session.lastErrorCode == PreflightError.Code.accessTokenExpired.rawValue)
        #expect(session.machine.isEnded)
        #expect(edge.admissions.total == 0)
        #expect(session.machine.nextDeadline == nil)
    }

    @Test func aSessionOverTheEdgesCapacityIsRefused() {
        let edge = Harness(maximumSessions: 1)
        var first = edge.session()
        first.signIn(Harness.claims("alice"))
        var second = edge.session()
        second.signIn(Harness.claims("bob"))
        #expect(second.lastErrorCode == PreflightError.Code.edgeAtCapacity.rawValue)
        #expect(second.machine.isEnded)
        // The first one's end frees its place.
        first.handle(.closed(protocolError: false), now: 1)
        #expect(edge.admissions.total == 0)
    }

    @Test func noHelloWithinTheSignalingTimeoutEndsTheSession() {
        let edge = Harness()
        var session = edge.session(now: 5)
        let deadline = 5 + edge.configuration.signalingTimeout.inSeconds
        #expect(session.machine.nextDeadline == deadline)
        session.poll(now: deadline - 0.001)
        #expect(session.sent.isEmpty)
        session.poll(now: deadline)
        #expect(session.lastErrorCode == PreflightError.Code.signalingTimeout.rawValue)
        #expect(session.machine.isEnded)
    }

    @Test func anUnexpectedMessageEndsTheSessionWith70002() {
        let edge = Harness()
        var session = edge.session()
        session.handle(.message(Self.invite()), now: 0)
        #expect(session.lastErrorCode == PreflightError.Code.malformed.rawValue)
        #expect(session.machine.isEnded)
        // An ended machine takes nothing more.
        session.sent.removeAll()
        session.handle(.message(.hello(token: "t", client: nil)), now: 1)
        #expect(session.sent.isEmpty && session.effects.isEmpty)
    }

    @Test func registeringNeedsTheIncomingGrantAndLiftsTheInviteLimit() {
        let edge = Harness()
        var refused = edge.session()
        refused.signIn(Harness.claims("alice", incoming: false))
        refused.handle(.message(.register), now: 1)
        #expect(refused.lastErrorCode == PreflightError.Code.invalidAccessTokenGrants.rawValue)
        #expect(refused.machine.isEnded)

        var session = edge.session()
        session.signIn(Harness.claims("bob"))
        session.handle(.message(.register), now: 1)
        #expect(session.sent.last == .registered(identity: "bob"))
        #expect(session.machine.nextDeadline == nil)
        #expect(edge.router.isRegistered(account: "AC1", identity: "bob"))
        session.handle(.closed(protocolError: false), now: 2)
        #expect(!edge.router.isRegistered(account: "AC1", identity: "bob"))
    }

    @Test func anEchoTestEndsAtTheMaximumTestDurationAndReleasesItsMedia() throws {
        let edge = Harness()
        var session = Self.testCall(edge, Harness.echoApplication, now: 2)
        let answer = try #require(session.lastAnswer)
        #expect(answer.application == "echo")
        #expect(session.sent.first { if case .ringing = $0 { true } else { false } } != nil)
        #expect(edge.media.sessionCount == 1)
        let deadline = 2 + edge.configuration.maximumTestDuration.inSeconds
        #expect(session.machine.nextDeadline == deadline)
        session.poll(now: deadline)
        #expect(session.lastHangup?.code == PreflightError.Code.testDurationExceeded.rawValue)
        #expect(session.machine.isEnded)
        #expect(edge.media.sessionCount == 0)
        #expect(edge.admissions.total == 0)
    }

    @Test func recordPlaybackRecordsFromTheFirstPacketPlaysBackAndCompletes() throws {
        let edge = Harness()
        var session = Self.testCall(edge, Harness.recordApplication, params: ["interval": "4"], now: 0)
        let ufrag = try #require(session.lastAnswer?.ice.ufrag)
        // Waiting for the caller's audio: nothing to do until the start timeout.
        #expect(session.machine.nextDeadline == edge.configuration.recordingStartTimeout.inSeconds)
        session.handle(.media(.recording(ufrag: ufrag, .started)), now: 1)
        // Recording for the invite's 4 s from the first packet.
        #expect(session.machine.nextDeadline == 5)
        session.poll(now: 4.9)
        #expect(!session.effects.contains { if case .playRecording = $0 { true } else { false } })
        session.poll(now: 5)
        guard case .playRecording(let played)? = session.effects.last else {
            Issue.record("expected the playback, got \(session.effects)")
            return
        }
        #expect(played == ufrag)
        // Playing: the playback's end is the media service's notice, not a deadline.
        #expect(session.machine.nextDeadline == edge.configuration.maximumTestDuration.inSeconds)
        session.handle(.media(.playbackFinished(ufrag: ufrag)), now: 9)
        #expect(session.machine.nextDeadline == 9 + edge.configuration.playbackPause.inSeconds)
        session.poll(now: 9 + edge.configuration.playbackPause.inSeconds)
        #expect(session.lastHangup == .init(callSid: session.lastHangup?.callSid ?? "", reason: "completed", code: nil))
        #expect(session.machine.isEnded)
    }

    @Test func aFullRecordingIsPlayedBackAtOnce() throws {
        let edge = Harness()
        var session = Self.testCall(edge, Harness.recordApplication, now: 0)
        let ufrag = try #require(session.lastAnswer?.ice.ufrag)
        // Another session's notice changes nothing.
        session.handle(.media(.recording(ufrag: "other", [.started, .full])), now: 0.5)
        #expect(session.effects.count == 2)
        session.handle(.media(.recording(ufrag: ufrag, [.started, .full])), now: 1)
        guard case .playRecording(ufrag)? = session.effects.last else {
            Issue.record("expected the playback at once, got \(session.effects)")
            return
        }
    }

    @Test func recordPlaybackWithoutAudioEndsWith31005() {
        let edge = Harness()
        var session = Self.testCall(edge, Harness.recordApplication, now: 0)
        session.poll(now: edge.configuration.recordingStartTimeout.inSeconds)
        #expect(session.lastHangup?.code == PreflightError.Code.connectionError.rawValue)
        #expect(session.machine.isEnded)
        #expect(edge.media.sessionCount == 0)
    }

    @Test func aRecordingIntervalOutsideTwoToTenSecondsIsRefused() {
        let edge = Harness()
        let session = Self.testCall(edge, Harness.recordApplication, params: ["interval": "11"], now: 0)
        #expect(session.lastErrorCode == PreflightError.Code.invalidArgument.rawValue)
        #expect(edge.media.sessionCount == 0)
    }

    @Test func aProbeFlushesItsArrivalRecordsEvery100Milliseconds() throws {
        let edge = Harness()
        var session = edge.session()
        session.signIn(Harness.claims("alice"))
        session.handle(.message(.probe(.init(ice: Harness.clientICE(), expectedUplinkBitrate: 1_000_000, expectedDownlinkBitrate: 1_000_000))), now: 1)
        #expect(session.lastAnswer?.application == "probe")
        guard case .runProbeDownlink? = session.effects.last else {
            Issue.record("expected the downlink probe to start, got \(session.effects)")
            return
        }
        #expect(session.machine.nextDeadline == 1.1)
        session.poll(now: 1.1)
        #expect(abs((session.machine.nextDeadline ?? 0) - 1.2) < 1e-9)
        // A train only inside the probe: elsewhere it is unexpected.
        var other = edge.session()
        other.signIn(Harness.claims("bob"))
        other.handle(.message(.probeTrain(.init(rate: 100_000, size: 200, duration: 1000))), now: 1)
        #expect(other.lastErrorCode == PreflightError.Code.malformed.rawValue)
    }

    @Test func aConnectionLostInACallParksAndAResumeContinuesWithANewToken() {
        let edge = Harness()
        var session = Self.testCall(edge, Harness.echoApplication, now: 1)
        let firstToken = session.machine.resumeToken
        session.handle(.closed(protocolError: false), now: 2)
        guard case .park(_, firstToken)? = session.effects.last else {
            Issue.record("expected the session to park with its token, got \(session.effects)")
            return
        }
        #expect(session.machine.nextDeadline == nil)
        session.handle(.resumed, now: 3)
        #expect(session.machine.resumeToken != firstToken)
        guard case .resumed(let resumed)? = session.sent.last else {
            Issue.record("expected resumed, got \(session.sent)")
            return
        }
        #expect(resumed.resumeToken == session.machine.resumeToken)
        #expect(resumed.callSid != nil)
        #expect(!session.machine.isEnded)
        // Lost again, and not resumed in time: the end.
        session.handle(.closed(protocolError: false), now: 4)
        session.handle(.notResumed, now: 14)
        #expect(session.machine.isEnded)
        #expect(edge.media.sessionCount == 0)
    }

    @Test func onlyTheCurrentTokenTakesASessionOverAndAProtocolErrorIsNotResumed() {
        let edge = Harness()
        var session = Self.testCall(edge, Harness.echoApplication, now: 1)
        session.handle(.takenOver(token: "not-the-token"), now: 2)
        #expect(!session.effects.contains { if case .park = $0 { true } else { false } })
        session.handle(.takenOver(token: session.machine.resumeToken), now: 2)
        #expect(session.effects.suffix(2).map { if case .detachReader = $0 { "detach" } else if case .park = $0 { "park" } else { "other" } } == ["detach", "park"])

        var broken = Self.testCall(edge, Harness.echoApplication, identity: "bob", now: 1)
        broken.handle(.closed(protocolError: true), now: 2)
        #expect(broken.machine.isEnded)
        #expect(!broken.effects.contains { if case .park = $0 { true } else { false } })
    }

    @Test func aResumeAsTheFirstMessageContinuesAnotherSessionOrIsRefused() {
        let edge = Harness()
        var session = edge.session()
        session.handle(.message(.resume(.init(sessionId: "SS1", resumeToken: "t"))), now: 0)
        guard case .resumeOther(let request)? = session.effects.last else {
            Issue.record("expected resumeOther, got \(session.effects)")
            return
        }
        #expect(request.sessionId == "SS1")
        session.handle(.resumedOther(false), now: 0)
        #expect(session.lastErrorCode == PreflightError.Code.sessionResumeRefused.rawValue)
        #expect(session.machine.isEnded)
    }
}
