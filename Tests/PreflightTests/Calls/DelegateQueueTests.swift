import Dispatch
import Foundation
import Preflight
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// On which dispatch queue each delegate's callbacks run: "TVOCallDelegate methods are called on
/// the main dispatch queue by default or on the delegateQueue provided to TVOConnectOptions or
/// TVOAcceptOptions" ("Twilio Voice SDK: TVOCall"), and the same for every other delegate.
///
/// `swift test` services the main queue (Swift Testing's entry point is an `async` `main`, whose
/// runtime drains the main queue; ``theTestRunnerServicesTheMainQueue()`` checks it), so the
/// main-queue default is tested as it is.
@Suite(.realTime, .serialized) struct DelegateQueueTests {
    /// The name of the queue a block runs on: the main queue and each test queue carry one.
    static let queueName = DispatchSpecificKey<String>()

    /// Marks the main queue as `main` (the mark stays for the process: it only names it).
    static func markMainQueue() {
        DispatchQueue.main.setSpecific(key: queueName, value: "main")
    }

    /// A serial queue marked `name`.
    static func queue(_ name: String) -> DispatchQueue {
        let queue = DispatchQueue(label: "preflight.tests.\(name)")
        queue.setSpecific(key: queueName, value: name)
        return queue
    }

    /// Each callback by name with the queue it ran on, in order.
    final class QueueLog: Sendable {
        private let entries = Mutex<[(callback: String, queue: String?)]>([])

        func record(_ callback: String) {
            let queue = DispatchQueue.getSpecific(key: DelegateQueueTests.queueName)
            entries.withLock { $0.append((callback, queue)) }
        }

        var callbacks: [String] { entries.withLock { $0.map(\.callback) } }
        /// The queues the callbacks ran on, `nil` for one with no name (a task's thread).
        var queues: Set<String?> { Set(entries.withLock { $0.map(\.queue) }) }

        /// Waits until every callback of `names` ran, at most 30 s.
        func wait(for names: Set<String>) async -> Bool {
            await eventually { Set(self.callbacks).isSuperset(of: names) }
        }
    }

    final class CallLog: CallDelegate, CallMessageDelegate, Sendable {
        let log = QueueLog()
        func callDidStartRinging(_ call: Call) { log.record("callDidStartRinging") }
        func callDidConnect(_ call: Call) { log.record("callDidConnect") }
        func call(_ call: Call, didFailToConnectWithError error: PreflightError) { log.record("didFailToConnect") }
        func call(_ call: Call, didDisconnectWithError error: PreflightError?) { log.record("didDisconnect") }
        func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>, previousWarnings: Set<QualityWarning>) {
            log.record("didReceiveQualityWarnings")
        }
        func messageReceived(forCallSid callSid: String, message: CallMessage) { log.record("messageReceived") }
        func messageSent(forCallSid callSid: String, voiceEventSid: String) { log.record("messageSent") }
    }

    final class RegistrationLog: NotificationDelegate, Sendable {
        let log = QueueLog()
        func callInviteReceived(_ callInvite: CallInvite) { log.record("callInviteReceived") }
        func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: PreflightError) {
            log.record("cancelledCallInviteReceived")
        }
    }

    final class TestLog: PreflightTestDelegate, LastmileProbeDelegate, Sendable {
        let log = QueueLog()
        func preflightTestDidConnect(_ test: PreflightTest) { log.record("preflightTestDidConnect") }
        func preflightTest(_ test: PreflightTest, didCompleteWith report: PreflightReport) { log.record("didComplete") }
        func preflightTest(_ test: PreflightTest, didFailWithError error: PreflightError) { log.record("didFail") }
        func preflightTest(_ test: PreflightTest, didReceive sample: StatsSample) { log.record("didReceiveSample") }
        func lastmileQuality(_ quality: NetworkQuality) { log.record("lastmileQuality") }
        func lastmileProbeResult(_ result: LastmileProbeResult) { log.record("lastmileProbeResult") }
    }

    @Test func theTestRunnerServicesTheMainQueue() async {
        let ran = Mutex(false)
        DispatchQueue.main.async { ran.withLock { $0 = true } }
        #expect(await eventually(within: .seconds(10)) { ran.withLock { $0 } }, "the main queue is not serviced under swift test")
    }

    /// Each options type's default is the main queue (`DispatchQueue.main` is a new wrapper of
    /// the one main queue at each use on Linux: the queue's mark tells it).
    @Test func everyOptionsTypeWithADelegateDefaultsToTheMainQueue() {
        Self.markMainQueue()
        let queues = [
            ConnectOptions(accessToken: "x").delegateQueue, AcceptOptions().delegateQueue,
            RegistrationOptions(accessToken: "x").delegateQueue, PreflightOptions(accessToken: "x").delegateQueue,
            LastmileProbeOptions(accessToken: "x").delegateQueue,
        ]
        #expect(queues.map { $0.getSpecific(key: Self.queueName) } == Array(repeating: "main", count: 5))
        #expect(Self.queue("other").getSpecific(key: Self.queueName) == "other")
    }

    /// A call between two clients: each party's call callbacks, message callbacks and the
    /// callee's registration callbacks on the queue its options name, or on the main queue.
    @Test(arguments: [false, true])
    func callCallbacksRunOnTheDelegateQueue(mainByDefault: Bool) async throws {
        Self.markMainQueue()
        let (callerQueue, calleeQueue, registrationQueue) = mainByDefault ? ("main", "main", "main") : ("caller", "callee", "registration")
        try await CallHarness.withEdge { harness in
            let registrationLog = RegistrationLog()
            var registrationOptions = RegistrationOptions(
                accessToken: try await harness.edge.callToken(identity: "bob"), edgeURL: harness.edge.signalingURL)
            if !mainByDefault { registrationOptions.delegateQueue = Self.queue(registrationQueue) }
            let bob = try await Voice.register(options: registrationOptions, delegate: registrationLog)
            let invites = bob.events()

            let callerLog = CallLog()
            var connect = ConnectOptions(
                accessToken: try await harness.edge.callToken(identity: "alice"), edgeURL: harness.edge.signalingURL,
                params: ["To": "client:bob"], callOptions: CallOptions(messageDelegate: callerLog))
            if !mainByDefault { connect.delegateQueue = Self.queue(callerQueue) }
            let caller = Voice.connect(options: connect, delegate: callerLog)

            let invite = try #require(await next(invites)?.invite)
            let calleeLog = CallLog()
            var accept = AcceptOptions(callOptions: CallOptions(messageDelegate: calleeLog))
            if !mainByDefault { accept.delegateQueue = Self.queue(calleeQueue) }
            let callee = invite.accept(options: accept, delegate: calleeLog)
            #expect(await caller.wait(for: .connected))
            #expect(await callee.wait(for: .connected))
            _ = caller.sendMessage(CallMessage(content: #"{"hello":"bob"}"#))
            #expect(await calleeLog.log.wait(for: ["messageReceived"]))
            #expect(await callerLog.log.wait(for: ["messageSent"]))
            caller.disconnect()
            #expect(await callee.endingError() == nil)
            #expect(await callerLog.log.wait(for: ["callDidStartRinging", "callDidConnect", "didDisconnect"]), "\(callerLog.log.callbacks)")
            #expect(await calleeLog.log.wait(for: ["callDidStartRinging", "callDidConnect", "didDisconnect"]), "\(calleeLog.log.callbacks)")
            #expect(await registrationLog.log.wait(for: ["callInviteReceived"]))
            #expect(callerLog.log.queues == [callerQueue], "\(callerLog.log.callbacks)")
            #expect(calleeLog.log.queues == [calleeQueue], "\(calleeLog.log.callbacks)")
            #expect(registrationLog.log.queues == [registrationQueue])
            // The callbacks keep the events' order on the queue.
            #expect(Array(callerLog.log.callbacks.filter { $0.hasPrefix("call") || $0.hasPrefix("did") }.prefix(2)) == [
                "callDidStartRinging", "callDidConnect",
            ])
            await bob.unregister()
        }
    }

    /// A preflight test's and a last-mile probe's callbacks on the queue their options name, or
    /// on the main queue.
    @Test(arguments: [false, true])
    func testAndProbeCallbacksRunOnTheDelegateQueue(mainByDefault: Bool) async throws {
        Self.markMainQueue()
        let name = mainByDefault ? "main" : "tests"
        try await LocalEdge.withRunning { edge in
            var options = PreflightOptions(
                accessToken: try await edge.token(application: .echo), edgeURL: edge.signalingURL, duration: .seconds(2))
            if !mainByDefault { options.delegateQueue = Self.queue(name) }
            let testLog = TestLog()
            let test = PreflightTest.run(options: options, delegate: testLog)
            _ = try? await test.result()
            #expect(await testLog.log.wait(for: ["preflightTestDidConnect", "didReceiveSample", "didComplete"]), "\(testLog.log.callbacks)")
            #expect(testLog.log.queues == [name])

            var probeOptions = LastmileProbeOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL)
            if !mainByDefault { probeOptions.delegateQueue = Self.queue(name) }
            let probeLog = TestLog()
            let probe = LastmileProbe(options: probeOptions, delegate: probeLog)
            try probe.start(config: LastmileProbeConfig(probeUplink: false, expectedDownlinkBitrate: 500_000))
            #expect(await probeLog.log.wait(for: ["lastmileProbeResult"]), "\(probeLog.log.callbacks)")
            #expect(probeLog.log.queues == [name])
        }
    }
}
