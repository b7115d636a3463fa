import Foundation
import Preflight
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// Telnyx's pre-call diagnosis against a real edge process: a good run's states and figures (in
/// seconds), each of Telnyx's errors from its cause, and the JSON read by an independent check.
@Suite(.realTime, .serialized) struct PreCallDiagnosisTests {
    /// Every state of `registration`'s diagnoses until the first outcome.
    static func outcome(of states: AsyncStream<PreCallDiagnosisState>, within timeout: Duration = .seconds(60)) async -> [PreCallDiagnosisState] {
        await withTaskGroup(of: [PreCallDiagnosisState].self) { group in
            group.addTask {
                var seen: [PreCallDiagnosisState] = []
                for await state in states {
                    seen.append(state)
                    if case .started = state { continue }
                    break
                }
                return seen
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return []
            }
            let first = await group.next() ?? []
            group.cancelAll()
            return first
        }
    }

    /// Records the delegate's callbacks.
    final class DelegateRecorder: NotificationDelegate {
        let states = Mutex<[String]>([])
        func onPreCallDiagnosisStateUpdated(state: PreCallDiagnosisState) {
            let name = switch state {
            case .started: "started"
            case .completed: "completed"
            case .failed(let error): "failed \(error?.code.rawValue ?? 0)"
            }
            states.withLock { $0.append(name) }
        }
    }

    @Test func aDiagnosisCallsTheTestNumberAndReportsInSeconds() async throws {
        try await CallHarness.withEdge { harness in
            let delegate = DelegateRecorder()
            let client = try await Voice.register(
                options: RegistrationOptions(accessToken: try await harness.edge.callToken(identity: "tester"), edgeURL: harness.edge.signalingURL),
                delegate: delegate)
            let states = client.preCallDiagnosisStates()
            try client.startPreCallDiagnosis(testNumber: LocalEdge.testNumber, callerName: "Pre-call Test", callerNumber: "+15551234567", duration: 3)
            let seen = await Self.outcome(of: states)
            #expect(seen.count == 2, "\(seen)")
            guard case .started = seen.first, case .completed(let diagnosis) = seen.last else {
                Issue.record("states \(seen)")
                return
            }
            // The handle's result is the same diagnosis, asked after the end.
            #expect(try await client.preCallDiagnosisResult() == diagnosis)
            // MOS in range, and the quality its band (QualityCategoryTests checks the bands; how
            // good a loopback call stays on a busy host is the lab's to measure, not a test's).
            print("pre-call diagnosis: mos \(diagnosis.mos), rtt \(diagnosis.rtt), jitter \(diagnosis.jitter), "
                + "\(diagnosis.packetsReceived) of \(diagnosis.packetsSent) packets back")
            #expect(diagnosis.mos >= 1 && diagnosis.mos <= 5, "mos \(diagnosis.mos)")
            #expect(diagnosis.quality == QualityCategory(mos: diagnosis.mos))
            #expect(diagnosis.rtt.avg > 0 && diagnosis.rtt.avg < 1, "rtt \(diagnosis.rtt)")
            #expect(diagnosis.rtt.min <= diagnosis.rtt.avg && diagnosis.rtt.avg <= diagnosis.rtt.max)
            #expect(diagnosis.jitter.avg >= 0 && diagnosis.jitter.avg < 1, "jitter \(diagnosis.jitter)")
            // Each rating is Telnyx's band of its own figure (a busy host's loopback may fall out of
            // "excellent": the bands are MetricRating's, checked without a call).
            #expect(diagnosis.jitterRating == MetricRating(jitterMilliseconds: diagnosis.jitter.avg * 1000), "jitter \(diagnosis.jitter)")
            #expect(diagnosis.rttRating == MetricRating(rttMilliseconds: diagnosis.rtt.avg * 1000), "rtt \(diagnosis.rtt)")
            #expect(diagnosis.packetLossRating == MetricRating(packetLossPercent: diagnosis.packetLossPercent))
            #expect(diagnosis.jitterRating != nil && diagnosis.rttRating != nil && diagnosis.packetLossRating != nil)
            // What was sent came back (loopback), counted as packets: more bytes than 160 each.
            #expect(diagnosis.packetsSent > 0, "\(diagnosis.packetsSent) sent")
            #expect(diagnosis.packetsReceived <= diagnosis.packetsSent, "\(diagnosis.packetsReceived) of \(diagnosis.packetsSent)")
            // Nothing lost: what had not come back when the totals were read was in flight, at
            // most the 50 packets a second of twice the largest round trip and half a second more (frames a stalled pacer sends late, at once), and two more.
            let inFlight = Int64(((diagnosis.rtt.max * 2 + 0.5) * 50).rounded(.up)) + 2
            #expect(diagnosis.packetsReceived + inFlight >= diagnosis.packetsSent, "\(diagnosis.packetsReceived) of \(diagnosis.packetsSent), \(inFlight) in flight")
            #expect(diagnosis.bytesSent > diagnosis.packetsSent * 160)
            #expect(diagnosis.bytesReceived > 0)
            #expect(!diagnosis.iceCandidates.isEmpty && diagnosis.iceCandidates.allSatisfy { !$0.isRemote })
            #expect(diagnosis.codec == "PCMU")
            let dictionary = diagnosis.toDictionary()
            #expect(Set(dictionary.keys).isSuperset(of: ["mos", "quality", "jitter", "rtt", "bytesSent", "bytesReceived", "packetsSent", "packetsReceived", "iceCandidates"]))
            #expect((dictionary["rtt"] as? [String: Any])?["avg"] as? Double == diagnosis.rtt.avg)
            // The delegate saw the same, in order (in a task of its own, so a moment later).
            _ = await eventually { delegate.states.withLock { $0.count } >= 2 }
            #expect(delegate.states.withLock { $0 } == ["started", "completed"])
            await client.unregister()
        }
    }

    /// The JSON of a diagnosis, read by Python: Telnyx's names, numbers where numbers go, seconds.
    @Test(.enabled(if: ExternalTool.canRun(needing: "python3"), "needs python3"))
    func theJSONReadsAsTelnyxsInAnIndependentCheck() async throws {
        try await CallHarness.withEdge { harness in
            let client = try await harness.register("tester")
            let states = client.preCallDiagnosisStates()
            try client.startPreCallDiagnosis(testNumber: LocalEdge.testNumber, duration: 2)
            guard case .completed(let diagnosis) = await Self.outcome(of: states).last else {
                Issue.record("no diagnosis")
                return
            }
            let json = String(decoding: try JSONEncoder().encode(diagnosis), as: UTF8.self)
            let verdict = try await ExternalTool.run("python3", ["-c", Self.jsonCheck], standardInput: Array(json.utf8))
            #expect(verdict.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(verdict)")
            await client.unregister()
        }
    }

    /// Field names, JSON types and units of a diagnosis, checked outside Swift.
    static let jsonCheck = """
        import json, sys
        d = json.load(sys.stdin)
        errors = []
        for key in ("mos", "packetLossPercent"):
            if not isinstance(d.get(key), (int, float)): errors.append(key + " is not a number")
        for key in ("bytesSent", "bytesReceived", "packetsSent", "packetsReceived"):
            if not isinstance(d.get(key), int): errors.append(key + " is not an integer")
        if d.get("quality") not in ("excellent", "good", "fair", "poor", "unknown"): errors.append("quality")
        for key in ("jitter", "rtt"):
            s = d.get(key) or {}
            if set(s) != {"min", "max", "avg"}: errors.append(key + " keys " + str(sorted(s)))
            elif not all(isinstance(s[k], (int, float)) for k in s): errors.append(key + " values")
            elif not (0 <= s["min"] <= s["avg"] <= s["max"] < 1): errors.append(key + " is not in seconds: " + str(s))
        if not isinstance(d.get("iceCandidates"), list) or not all("candidateType" in c and "ip" in c for c in d["iceCandidates"]):
            errors.append("iceCandidates")
        print("ok" if not errors else "; ".join(errors))
        """

    @Test func anEmptyNumberIs70501AndAnEndedClient70502() async throws {
        try await CallHarness.withEdge { harness in
            let client = try await harness.register("tester")
            let states = client.preCallDiagnosisStates()
            let empty = #expect(throws: PreflightError.self) { try client.startPreCallDiagnosis(testNumber: "  ") }
            #expect(empty?.code == .destinationNumberIsRequired)
            guard case .failed(let published) = await Self.outcome(of: states).last else {
                Issue.record("no failed state")
                return
            }
            #expect(published?.code == .destinationNumberIsRequired)
            let long = #expect(throws: PreflightError.self) { try client.startPreCallDiagnosis(testNumber: LocalEdge.testNumber, duration: 301) }
            #expect(long?.code == .invalidArgument)
            await client.unregister()
            let ended = #expect(throws: PreflightError.self) { try client.startPreCallDiagnosis(testNumber: LocalEdge.testNumber) }
            #expect(ended?.code == .sessionIdIsRequired)
        }
    }

    @Test func aNumberTheEdgeDoesNotRouteIsCallNotFound() async throws {
        try await CallHarness.withEdge { harness in
            let client = try await harness.register("tester")
            let states = client.preCallDiagnosisStates()
            try client.startPreCallDiagnosis(testNumber: "+19999999999", duration: 2)
            guard case .failed(let error) = await Self.outcome(of: states).last else {
                Issue.record("no failed state")
                return
            }
            #expect(error?.code == .callNotFound)
            await client.unregister()
        }
    }

    /// The number rings bob, who answers and hangs up at once: the call ended without an error
    /// before its first sample.
    @Test func aCallThatEndsBeforeItsFirstSampleIsNoMetricsCollected() async throws {
        try await CallHarness.withEdge(["--route", "+15550000000=client:bob"]) { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let answering = Task {
                guard let invite = await next(invites)?.invite else { return }
                let call = invite.accept()
                _ = await call.wait(for: .connected)
                call.disconnect()
            }
            let client = try await harness.register("tester")
            let states = client.preCallDiagnosisStates()
            try client.startPreCallDiagnosis(testNumber: "+15550000000", duration: 5)
            guard case .failed(let error) = await Self.outcome(of: states).last else {
                Issue.record("no failed state")
                return
            }
            #expect(error?.code == .noMetricsCollected, "\(String(describing: error))")
            await answering.value
            await client.unregister()
            await bob.unregister()
        }
    }

    /// The client is connected, but its diagnosis call cannot reach the edge (nothing listens at
    /// its URL any more): the diagnosis ends in Telnyx's `failed` state with socketConnectionFailed
    /// (53000), on the stream, the delegate and the result alike.
    @Test func aDiagnosisThatCannotReachTheEdgeFailsWithSocketConnectionFailed() async throws {
        try await CallHarness.withEdge { harness in
            let relay = try await TCPRelay.start(targetPort: try #require(URL(string: harness.edge.signalingURL)?.port))
            let delegate = DelegateRecorder()
            let client = try await Voice.register(
                options: RegistrationOptions(
                    accessToken: try await harness.edge.callToken(identity: "tester"), edgeURL: "ws://127.0.0.1:\(relay.port)/signaling",
                    signalingTimeout: .seconds(3)),
                delegate: delegate)
            // The registration's own connection stays up; new ones to its URL are refused.
            await relay.stopListening()
            let states = client.preCallDiagnosisStates()
            try client.startPreCallDiagnosis(testNumber: LocalEdge.testNumber, duration: 3)
            let seen = await Self.outcome(of: states)
            guard case .started = seen.first, case .failed(let error) = seen.last else {
                Issue.record("states \(seen)")
                return
            }
            #expect(error?.code == .socketConnectionFailed, "\(String(describing: error))")
            #expect(error?.code.rawValue == 53000)
            let resultError = await #expect(throws: PreflightError.self) { try await client.preCallDiagnosisResult() }
            #expect(resultError?.code == .socketConnectionFailed)
            #expect(await eventually { delegate.states.withLock { $0 } == ["started", "failed 53000"] }, "\(delegate.states.withLock { $0 })")
            await client.unregister()
            await relay.stop()
        }
    }

    /// Nothing listens where the client connects: the connection fails with Telnyx's
    /// socketConnectionFailed.
    @Test func anUnreachableEdgeIsSocketConnectionFailed() async throws {
        // A local edge's URL once it has stopped: nothing listens there any more.
        let url = try await LocalEdge.withRunning { $0.signalingURL }
        let error = await #expect(throws: PreflightError.self) {
            try await Voice.register(options: RegistrationOptions(accessToken: "a.b.c", edgeURL: url, signalingTimeout: .seconds(3)))
        }
        #expect(error?.code == .socketConnectionFailed)
    }
}
