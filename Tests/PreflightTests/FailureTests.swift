import Foundation
import NIOCore
import NIOPosix
import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

/// Tests that fail on purpose: each ends in `failed` with its code, quickly, with a partial report.
@Suite(.realTime, .serialized) struct FailureTests {
    /// Runs `test` to its end and returns the failure and partial report (records an issue if it completed).
    static func failure(of test: PreflightTest) async -> (PreflightError, PreflightReport)? {
        for await event in test.events() {
            switch event {
            case .failed(let error, let partial): return (error, partial)
            case .completed: Issue.record("the test completed; it was expected to fail")
            default: continue
            }
        }
        return nil
    }

    @Test func stopFailsAtOnceWith31008AndAPartialReport() async throws {
        try await LocalEdge.withRunning { edge in
            let test = PreflightTest.run(
                options: PreflightOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(30)))
            var samples = 0
            for await event in test.events() {
                if case .sample = event { samples += 1 }
                if samples == 2 { break }
            }
            let before = ContinuousClock.now
            test.stop()
            // stop() fails the test before it returns (no waiting on sockets or the edge).
            #expect(test.status == .failed)
            let elapsed = ContinuousClock.now - before
            let (error, partial) = try #require(await Self.failure(of: test))
            #expect(error.code == .cancelled)
            #expect(elapsed < .milliseconds(200))
            #expect(partial.statsSamples.count >= 2)
            #expect(partial.callSid.hasPrefix("CA"))
            #expect(partial.selectedIceCandidatePair != nil)
            #expect(partial.error?.code == 31008)
            #expect(partial.networkTiming.preflightTest != nil)
            #expect(test.report == PreflightReport())  // empty unless completed, as Twilio's SDK
            #expect(test.partialReport.statsSamples.count == partial.statsSamples.count)
            // A stop after the end changes nothing.
            test.stop()
            #expect(test.status == .failed)
        }
    }

    @Test func expiredAndWronglySignedTokensFailWithTheirCodes() async throws {
        try await LocalEdge.withRunning { edge in
            let stranger = try await AccessTokenIssuer(
                apiKeySID: LocalEdge.apiKeySID, apiKeySecret: LocalEdge.randomSecret(), accountSID: LocalEdge.accountSID)
            let wronglySigned = try await stranger.mint(identity: "mallory", outgoingApplicationSID: LocalEdge.applicationSID(.echo))
            // Issued an hour ago for a minute: expired well past the edge's 5 s allowance for skew.
            let expired = try await edge.token(lifetime: .seconds(60), issuedAt: Date(timeIntervalSinceNow: -3600))
            for (token, code) in [
                ("not-a-jwt", PreflightError.Code.invalidAccessToken), (wronglySigned, .invalidAccessTokenSignature),
                (expired, .accessTokenExpired),
            ] {
                let test = PreflightTest.run(options: PreflightOptions(accessToken: token, edgeURL: edge.signalingURL))
                let (error, partial) = try #require(await Self.failure(of: test))
                #expect(error.code == code, "\(error)")
                #expect(partial.statsSamples.isEmpty)
                #expect(partial.error?.code == code.rawValue)
            }
        }
    }

    @Test func noEdgeListeningFailsWithAConnectionError() async throws {
        // A port that was just free: bind, note it, close.
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(channel.localAddress?.port)
        try await channel.close()
        let test = PreflightTest.run(
            options: PreflightOptions(accessToken: "x.y.z", edgeURL: "ws://127.0.0.1:\(port)/signaling", signalingTimeout: .seconds(3)))
        let (error, partial) = try #require(await Self.failure(of: test))
        #expect(error.code == .signalingConnectionError || error.code == .signalingTimeout, "\(error)")
        let whole = try #require(partial.networkTiming.preflightTest)
        #expect(whole.duration <= 3_500)
    }

    /// Record-playback hears no audio within the edge's start timeout (the client's audio input
    /// ends before its first frame): the edge hangs up with 31005 and says why, and the test fails
    /// with it and a partial report.
    @Test func recordPlaybackThatHearsNoAudioFailsWith31005() async throws {
        struct NoAudio: AudioFrameSource {
            func nextAudioFrame() -> [Int16]? { nil }
        }
        var configuration = LocalEdge.configuration()
        configuration.recordingStartTimeout = .seconds(1)
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let test = PreflightTest.run(options: PreflightOptions(
                accessToken: try await edge.token(application: .recordPlayback), edgeURL: edge.signalingURL,
                fakeMicInput: false, audioInput: NoAudio()))
            let (error, partial) = try #require(await Self.failure(of: test))
            #expect(error.code == .connectionError)
            #expect(error.code.rawValue == 31005)
            #expect(error.message.contains("no audio to record"), "\(error.message)")
            #expect(partial.application == "record-playback")
            #expect(test.status == .failed)
        }
    }

    @Test func edgeHangsUpAtItsMaximumDuration() async throws {
        var configuration = LocalEdge.configuration()
        configuration.maximumTestDuration = .seconds(2)
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let test = PreflightTest.run(
                options: PreflightOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(10)))
            let (error, partial) = try #require(await Self.failure(of: test))
            #expect(error.code == .testDurationExceeded)
            #expect(!partial.statsSamples.isEmpty)
        }
    }

    @Test func killingTheEdgeMidTestFailsLongBeforeItsEnd() async throws {
        // The preflight executable that `swift test` builds beside the test bundle.
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("preflight")
        let edge = try await EdgeProcess.start(executable: executable, arguments: ["--log-level", "error"])
        defer { edge.kill() }
        let token = try await edge.token(identity: "victim")
        let test = PreflightTest.run(options: PreflightOptions(accessToken: token, edgeURL: edge.signalingURL, duration: .seconds(30)))
        var samples = 0
        for await event in test.events() {
            if case .sample = event { samples += 1 }
            if samples == 2 { break }
        }
        let killed = ContinuousClock.now
        edge.kill()
        let (error, partial) = try #require(await Self.failure(of: test))
        let detection = ContinuousClock.now - killed
        #expect([PreflightError.Code.signalingDisconnected, .mediaConnectionFailed].contains(error.code), "\(error)")
        // Noticed from the lost signaling or media (a 2.5 s media timeout), not at the test's
        // 30 s end; how soon on a busy host is not this test's business.
        #expect(detection < .seconds(15), "failure took \(detection)")
        #expect(partial.statsSamples.count >= 2)
    }
}

