import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// The clock a test gives a run: it runs with the system's, and moving it fires the run's timers
/// at once.
@Suite(.timeLimit(.minutes(1))) struct VirtualClockTests {
    @Test func aSleeperWakesWhenTheClockPassesItsDeadline() async throws {
        let clock = VirtualClock()
        let deadline = clock.now + .seconds(3600)
        let woke = Mutex(false)
        let sleeper = Task {
            try await clock.runClock.sleep(until: deadline)
            woke.withLock { $0 = true }
        }
        #expect(await eventually { clock.sleeperCount == 1 })
        await clock.advance(by: .seconds(1800))
        // Half way: still asleep, and asleep again on the clock.
        #expect(await eventually { clock.sleeperCount == 1 })
        #expect(!woke.withLock { $0 })
        await clock.advance(by: .seconds(1800))
        try await sleeper.value
        #expect(woke.withLock { $0 })
        #expect(clock.sleeperCount == 0)
        #expect(clock.skipped == .seconds(3600))
    }

    @Test func itRunsWithTheSystemsTimeWhenNotMoved() async throws {
        let clock = VirtualClock()
        let before = ContinuousClock.now
        try await clock.runClock.sleep(until: clock.now + .milliseconds(50))
        #expect(ContinuousClock.now - before >= .milliseconds(50))
        let now = clock.now
        #expect(now >= ContinuousClock.now - .milliseconds(1) && now <= ContinuousClock.now + .milliseconds(1) || clock.skipped == .zero)
        await clock.advance(by: .seconds(10))
        #expect(clock.now - ContinuousClock.now > .seconds(9))
    }

    @Test func aCancelledSleeperThrowsAtOnce() async {
        let clock = VirtualClock()
        let sleeper = Task { try await clock.runClock.sleep(until: clock.now + .seconds(3600)) }
        #expect(await eventually { clock.sleeperCount == 1 })
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
        // Cancelled before it sleeps: throws too.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.runClock.sleep(until: clock.now + .seconds(3600))
        }
        await #expect(throws: CancellationError.self) { try await early.value }
    }

    /// A ten-minute test on the virtual clock: each skipped second takes a sample from the real
    /// media, and skipping to the end completes it at once.
    @Test(.realTime) func aLongTestEndsWhenItsClockIsMoved() async throws {
        try await LocalEdge.withRunning { edge in
            let clock = VirtualClock()
            var options = PreflightOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(600))
            options.clock = clock.runClock
            let test = PreflightTest.run(options: options)
            let events = test.events()
            var samples = 0
            var connected = false
            for await event in events {
                switch event {
                case .connected:
                    connected = true
                    // Real media for a moment, then a second skipped: the sample tick fires.
                    await clock.advance(by: .seconds(1), whenSleeping: 2)
                case .sample:
                    samples += 1
                    if samples < 3 {
                        await clock.advance(by: .seconds(1))
                    } else if samples == 3 {
                        await clock.advance(by: .seconds(600))
                    }
                default:
                    break
                }
            }
            #expect(connected)
            let report = try await test.result()
            #expect(report.statsSamples.count >= 3)
            #expect(report.statsSamples.count <= 10)
            #expect(report.statsSamples.allSatisfy { $0.packetsSent > 0 })
            #expect(clock.skipped >= .seconds(600))
        }
    }
}
