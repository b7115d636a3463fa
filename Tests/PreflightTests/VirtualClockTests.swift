import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// The clock a test gives a run: it runs with the system's, and moving it fires the run's timers
/// at once.
@Suite(.timeLimit(.minutes(10))) struct VirtualClockTests {
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

    /// A ten-minute test on the virtual clock: the first sample comes after a real second of
    /// media, each skipped second then takes one more, and skipping to the end completes it at once.
    @Test(.realTime) func aLongTestEndsWhenItsClockIsMoved() async throws {
        try await LocalEdge.withRunning { edge in
            let clock = VirtualClock()
            var options = PreflightOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(600))
            options.clock = clock.runClock
            let test = PreflightTest.run(options: options)
            var samples: [StatsSample] = []
            for await event in test.events() {
                guard case .sample(let sample) = event else { continue }
                samples.append(sample)
                // The sample tick and the test's end are armed: move past one, then past both.
                if samples.count <= 3 { await clock.advance(by: samples.count < 3 ? .seconds(1) : .seconds(600), whenSleeping: 2) }
            }
            let report = try await test.result()
            // Three samples, the one the jump fired (missed ticks are skipped, not bursted) and
            // the closing one: never the 600 a real ten minutes would take.
            #expect(report.statsSamples.count >= 4)
            #expect(report.statsSamples.count <= 6)
            #expect(report.statsSamples.first.map { $0.packetsSent > 0 } == true)
            #expect(zip(report.statsSamples, report.statsSamples.dropFirst()).allSatisfy { $0.packetsSent <= $1.packetsSent })
            #expect(clock.skipped >= .seconds(602))
        }
    }
}
