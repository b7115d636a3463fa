import ArgumentParser
import Foundation
@testable import PreflightCLI
import PreflightCore
import PreflightEdge
import Synchronization
import PreflightTesting
import Testing

/// `preflight call`, `listen` and `load --calls` end to end, on a local edge (in this process) or
/// an edge process, loopback only.
@Suite(.realTime, .serialized) struct CallCommandTests {
    static let connectedStates = ["connecting", "ringing", "connected", "disconnected"]
    /// The connected row of the TVOCall tables, for caller and callee alike.
    static let connectedCallbacks = ["callDidStartRinging", "callDidConnect", "call:didDisconnectWithError:"]

    /// Runs `arguments` (a `call` command line) and returns its printed JSON, decoded, and the outcomes it returned.
    static func call(_ arguments: [String]) async throws -> (printed: CallOutcomes, returned: CallOutcomes, progress: [String]) {
        let command = try #require(try PreflightCommand.parseAsRoot(["call"] + arguments) as? CallCommand)
        let output = Mutex("")
        let progress = Mutex<[String]>([])
        let returned = await command.execute(
            progress: { line in progress.withLock { $0.append(line) } }, output: { text in output.withLock { $0 += text } })
        let printed = try JSONDecoder().decode(CallOutcomes.self, from: Data(output.withLock { $0 }.utf8))
        return (printed, returned, progress.withLock { $0 })
    }

    @Test func bothPartiesOnTheLocalEdgeReportTheConnectedRow() async throws {
        let (outcomes, returned, progress) = try await Self.call(["--to", "client:bob", "--duration", "2", "--digits", "1w2w#", "--json"])
        #expect(outcomes == returned)
        #expect(outcomes.error == nil)
        let callee = try #require(outcomes.callee)
        for party in [outcomes.caller, callee] {
            #expect(party.states == Self.connectedStates, "\(party.party)")
            #expect(party.callbacks == Self.connectedCallbacks, "\(party.party)")
            #expect(party.error == nil, "\(party.party)")
            #expect(!party.samples.isEmpty, "\(party.party)")
            #expect((party.samples.last?.packetsReceived ?? 0) > 0, "\(party.party)")
            #expect(party.summary.sampleCount == party.samples.count)
            #expect(party.summary.packetsReceived == party.samples.last?.packetsReceived)
        }
        #expect(outcomes.caller.party == "caller")
        #expect(callee.party == "callee")
        #expect(outcomes.caller.callSid != nil)
        #expect(outcomes.caller.callSid == callee.callSid)
        // The digits went in the caller's audio stream, through the bridge, to the callee, in
        // order. On a loaded machine (the whole suite on two cores) the caller's pacer sends
        // stalled frames at once, and the bridge sends bob no more datagrams than bob sent it
        // (docs/security.md): what a burst puts beyond that is dropped, digits with it (two
        // full runs of three lost one or two; one run in a fresh clone lost all three, sent
        // back to back). Half a second apart ("w"), one stall cannot take them all. So some may
        // be missing; none wrong or reordered.
        #expect(!callee.digitsReceived.isEmpty && Self.isSubsequence(callee.digitsReceived, of: "12#"), "\(callee.digitsReceived)")
        #expect(outcomes.caller.digitsReceived.isEmpty)
        // The live lines went to progress (standard error), one per callback and per second.
        #expect(progress.contains { $0.hasPrefix("caller callDidConnect") })
        #expect(progress.contains { $0.hasPrefix("callee   1 s  rtt") })
    }

    /// Whether `part`'s characters appear in `whole` in the same order.
    static func isSubsequence(_ part: String, of whole: String) -> Bool {
        var rest = whole[...]
        for character in part {
            guard let index = rest.firstIndex(of: character) else { return false }
            rest = rest[rest.index(after: index)...]
        }
        return true
    }

    @Test func theJSONHasTheDocumentedKeys() async throws {
        let command = try #require(try PreflightCommand.parseAsRoot(["call", "--to", "echo", "--duration", "1", "--json"]) as? CallCommand)
        let output = Mutex("")
        _ = await command.execute(progress: { _ in }, output: { text in output.withLock { $0 += text } })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.withLock { $0 }.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["caller", "callee"])
        #expect(object["callee"] is NSNull)
        let caller = try #require(object["caller"] as? [String: Any])
        for key in ["states", "callbacks", "callSid", "error", "samples", "warnings", "summary", "digitsReceived", "connectMilliseconds"] {
            #expect(caller.keys.contains(key), "\(key)")
        }
        #expect(caller["error"] is NSNull)
        // From placing the call to connected: more than nothing, less than the test's timeouts.
        let connect = try #require(caller["connectMilliseconds"] as? Double)
        #expect(connect > 0 && connect < 30_000)
        #expect((caller["states"] as? [String]) == Self.connectedStates)
    }

    @Test func aCallToNobodyFailsWithItsCode() async throws {
        let (outcomes, _, _) = try await Self.call(["--to", "+15550100", "--duration", "1", "--json"])
        let error = try #require(outcomes.error)
        #expect(error.code == .calleeNotFound)
        #expect(CommandFailure(error).description.hasPrefix("error \(PreflightError.Code.calleeNotFound.rawValue): "))
        #expect(outcomes.caller.states == ["connecting", "disconnected"])
        #expect(outcomes.caller.callbacks == ["call:didFailToConnectWithError:"])
        #expect(outcomes.caller.samples.isEmpty)
    }

    @Test func theTextOutcomeNamesStatesCallbacksAndSummary() async throws {
        let command = try #require(try PreflightCommand.parseAsRoot(["call", "--to", "client:bob", "--duration", "1"]) as? CallCommand)
        let lines = Mutex<[String]>([])
        let outcomes = await command.execute(progress: { _ in Issue.record("progress used without --json") }, output: { text in lines.withLock { $0.append(text) } })
        #expect(outcomes.error == nil)
        let text = lines.withLock { $0.joined(separator: "\n") }
        #expect(text.contains("  States       connecting → ringing → connected → disconnected"))
        #expect(text.contains("callee: call CA"))
        // A 1-second call on a busy host may end before its first sample: the summary then says so.
        if outcomes.caller.samples.isEmpty {
            #expect(text.contains("  Samples      none (media never flowed)"))
        } else {
            #expect(text.contains("  MOS          mean"))
        }
    }

    /// `listen` on a local edge answers a call placed by `call --edge-url`; `--calls 1` ends it.
    @Test(arguments: [ListenCommand.Answer.auto, .reject])
    func listenAnswersOrRejectsACall(answer: ListenCommand.Answer) async throws {
        try await LocalEdge.withRunning { edge in
            let calleeToken = try await edge.callToken(identity: "bob")
            // answerOnBridge: the caller's media waits for the answer, so that a rejection reaches
            // it as the rejection (without, its early media to the edge can fail first, 53405).
            let callerToken = try await edge.callToken(identity: "alice", answerOnBridge: true, incomingAllow: false)
            let listen = try #require(
                try PreflightCommand.parseAsRoot([
                    "listen", "--edge-url", edge.signalingURL, "--token", calleeToken, "--identity", "bob", "--answer", answer.rawValue,
                    "--calls", "1",
                ]) as? ListenCommand)
            let (lines, linesContinuation) = AsyncStream<String>.makeStream()
            let (stop, _) = AsyncStream<Void>.makeStream()
            let listening = Task { await listen.listen(stop: stop, progress: { _ in }, output: { linesContinuation.yield($0) }) }
            var registered = false
            for await line in lines where line.hasPrefix("registered as client:bob") {
                registered = true
                break
            }
            #expect(registered)
            let (outcomes, _, _) = try await Self.call([
                "--to", "client:bob", "--edge-url", edge.signalingURL, "--token", callerToken, "--duration", "1", "--json",
            ])
            let result = await listening.value
            #expect(result.error == nil)
            switch answer {
            case .auto:
                #expect(outcomes.error == nil)
                #expect(outcomes.caller.states == Self.connectedStates)
                #expect(outcomes.callee == nil)
                #expect(result.outcomes.count == 1)
                #expect(result.outcomes.first?.states == Self.connectedStates)
                #expect(result.outcomes.first?.callbacks == Self.connectedCallbacks)
                #expect(result.outcomes.first?.callSid == outcomes.caller.callSid)
            case .reject:
                #expect(outcomes.error?.code == .callRejected)
                #expect(result.rejected.count == 1)
                #expect(result.outcomes.isEmpty)
            }
        }
    }

    /// The `preflight` executable that `swift test` builds beside the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("preflight")
    }

    @Test func loadWithTwoCallsHoldsBoth() async throws {
        var run = CallLoadRun(calls: 2, duration: .seconds(2))
        run.executable = Self.executable
        let result = try await run.run { _ in }
        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.connected == 2)
        #expect(result.held == 2)
        // Two calls, two directions, a packet each 20 ms of the 2 s at most, and packets arrived
        // to the end (held). How many a sender starved of CPU sends, and how many of a burst
        // after a stall the sockets drop, are the load benchmark's figures, not this test's.
        #expect(result.packetsSent > 0 && result.packetsSent <= 4 * 50 * 2 + 4, "\(result.packetsSent) sent")
        #expect(result.packetsReceived > 0 && result.packetsReceived <= result.packetsSent, "\(result.packetsReceived) of \(result.packetsSent)")
        #expect(result.latencies.count == result.packetsReceived)
        #expect(result.latencies.allSatisfy { $0 >= 0 && $0 < 1000 })
        #expect(result.description.contains("2 of 2 connected, 2 held to the end"))
    }
}

/// `preflight listen` and `call` on two edges that share a database. Apart from
/// ``CallCommandTests`` (real-time): two edges load the machine, so this runs while no real-time
/// test does, and a test may not hold a real-time share while it waits for the whole gate.
@Suite(.loadsTheMachine) struct CallCommandAcrossEdgesTests {
    /// `listen` on one edge answers a call that `call` places on another: two `serve`
    /// processes sharing a PostgreSQL database with `--route-across-edges`.
    @Test(.enabled(if: PostgresTestDatabase.canRun, Comment(rawValue: PostgresTestDatabase.skipReason)))
    func listenOnOneEdgeAnswersACallPlacedOnAnother() async throws {
        let database = try await PostgresTestDatabase.create()
        try await withBlockingCleanup({ database.drop() }) {
            func start(_ name: String) async throws -> EdgeProcess {
                try await EdgeProcess.start(
                    executable: CallCommandTests.executable,
                    arguments: ["--log-level", "error", "--database", database.url, "--edge-name", name, "--route-across-edges"])
            }
            let europe = try await start("europe")
            defer { europe.kill() }
            let america = try await start("america")
            defer { america.kill() }
            let listen = try #require(
                try PreflightCommand.parseAsRoot([
                    "listen", "--edge-url", america.signalingURL, "--token", try await america.callToken(identity: "bob"), "--identity", "bob",
                    "--calls", "1",
                ]) as? ListenCommand)
            let (lines, linesContinuation) = AsyncStream<String>.makeStream()
            let (stop, _) = AsyncStream<Void>.makeStream()
            let listening = Task { await listen.listen(stop: stop, progress: { _ in }, output: { linesContinuation.yield($0) }) }
            for await line in lines where line.hasPrefix("registered as client:bob") { break }
            // The registration reaches the other edge within its announcement (or the 2 s reload).
            var outcomes: CallOutcomes?
            for _ in 0..<50 {
                let (attempt, _, _) = try await CallCommandTests.call([
                    "--to", "client:bob", "--edge-url", europe.signalingURL, "--token",
                    try await europe.callToken(identity: "alice", answerOnBridge: true, incomingAllow: false), "--duration", "1", "--json",
                ])
                outcomes = attempt
                if attempt.error?.code != .calleeUnavailable { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let result = await listening.value
            #expect(outcomes?.error == nil)
            #expect(outcomes?.caller.states == CallCommandTests.connectedStates)
            #expect(result.outcomes.first?.states == CallCommandTests.connectedStates)
            #expect(result.outcomes.first?.callSid == outcomes?.caller.callSid)
        }
    }

    /// An edge that drains ends `listen`'s registration with 70109: `listen` registers again on
    /// its `--fallback-edge-url` (the draining edge refuses it), where a call then reaches it.
    @Test func listenRegistersAgainOnItsFallbackWhenItsEdgeDrains() async throws {
        let draining = try await EdgeProcess.start(
            executable: CallCommandTests.executable, arguments: ["--log-level", "error", "--drain-limit", "5"])
        defer { draining.kill() }
        // The fallback trusts the same API key, so that one token registers on either.
        let fallback = try await EdgeProcess.start(
            executable: CallCommandTests.executable, arguments: ["--log-level", "error", "--api-secret", draining.secret])
        defer { fallback.kill() }
        let listen = try #require(
            try PreflightCommand.parseAsRoot([
                "listen", "--edge-url", draining.signalingURL, "--fallback-edge-url", fallback.signalingURL,
                "--token", try await draining.callToken(identity: "bob"), "--identity", "bob", "--calls", "1", "--json",
            ]) as? ListenCommand)
        let (lines, linesContinuation) = AsyncStream<String>.makeStream()
        let (stop, _) = AsyncStream<Void>.makeStream()
        let listening = Task {
            let result = await listen.listen(stop: stop, progress: { _ in }, output: { linesContinuation.yield($0) })
            linesContinuation.finish()
            return result
        }
        var events: [[String: Any]] = []
        for await line in lines {
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            events.append(event)
            if event["event"] as? String == "registered", event["edge"] as? String == draining.signalingURL { draining.terminate() }
            if event["event"] as? String == "registered", event["edge"] as? String == fallback.signalingURL { break }
        }
        let kinds = events.compactMap { $0["event"] as? String }
        try #require(kinds == ["registered", "unregistered", "registered"], "\(events)")
        #expect((events[1]["error"] as? [String: Any])?["code"] as? Int == 70109)
        let (outcomes, _, _) = try await CallCommandTests.call([
            "--to", "client:bob", "--edge-url", fallback.signalingURL, "--token",
            try await draining.callToken(identity: "alice", answerOnBridge: true, incomingAllow: false), "--duration", "1", "--json",
        ])
        let result = await listening.value
        #expect(outcomes.error == nil)
        #expect(result.error == nil)
        #expect(result.outcomes.first?.callSid == outcomes.caller.callSid)
    }
}
