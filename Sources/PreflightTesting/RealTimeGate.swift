import Testing

/// What a test needs of the machine's cores, declared as a trait on its suite:
///
/// - ``Trait/realTime``: its assertions hold only if packets go out and come back on time (a
///   call's packet counts, a probe's rating, a speaker check's recording, an edge's answers);
///   at most ``RealTimeGate/width`` such tests run at once.
/// - ``Trait/loadsTheMachine``: it floods an edge, starts a browser or loads a database on
///   purpose; it runs while no real-time test does (and they wait for it).
///
/// Swift Testing runs every test at once by default. On two cores, thirty calls, probes and
/// floods side by side starve each other's event loops of CPU for seconds: a real-time test then
/// measures the scheduler, not the code. The gate keeps the README's `swift test` honest with
/// no parallelism limit on the command: tests without the trait (the pure cores, the parsers, the
/// virtual-time tests) run at full width beside the gated ones.
///
/// A test's own timeouts start when it runs, but its `.timeLimit` counts the wait at the gate too:
/// a time limit on a gated suite guards against a hang (minutes), it does not measure. The gate is
/// first come, first served, so a test that loads the machine is not passed over forever by
/// real-time tests arriving after it.
public struct MachineShareTrait: SuiteTrait, TestTrait, TestScoping {
    /// How much of the gate the test takes: 1 of ``RealTimeGate/width``, or all of it.
    let share: Int

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // Once per running test case: a suite's own scope (no test case) passes straight through.
        // A test under two of these traits (a flood inside a real-time suite) takes the larger
        // share, not both: what it holds already counts.
        let extra = share - Self.held
        guard testCase != nil, extra > 0 else { return try await function() }
        await RealTimeGate.shared.enter(extra)
        do {
            try await Self.$held.withValue(share) { try await function() }
        } catch {
            await RealTimeGate.shared.leave(extra)
            throw error
        }
        await RealTimeGate.shared.leave(extra)
    }

    /// The share the running test holds already.
    @TaskLocal static var held = 0
}

extension Trait where Self == MachineShareTrait {
    /// The test's assertions need packets on time: at most ``RealTimeGate/width`` such tests at once.
    public static var realTime: Self { MachineShareTrait(share: 1) }
    /// The test loads the machine on purpose: it runs while no real-time test does.
    public static var loadsTheMachine: Self { MachineShareTrait(share: RealTimeGate.width) }
}

/// The gate of ``MachineShareTrait``: a first-come, first-served semaphore of ``width`` shares.
public actor RealTimeGate {
    /// Real-time tests that run at once: three keeps a two-core machine's event loops answering
    /// within a few milliseconds while the suite still overlaps its waits (README, "Set up").
    public static let width = 3

    /// The one gate of the test process.
    public static let shared = RealTimeGate()

    private var taken = 0
    private var waiting: [(share: Int, resume: CheckedContinuation<Void, Never>)] = []

    /// Waits until `share` is free and no earlier arrival is still waiting, then takes it.
    public func enter(_ share: Int) async {
        let share = min(max(share, 1), Self.width)
        if waiting.isEmpty, taken + share <= Self.width {
            taken += share
            return
        }
        await withCheckedContinuation { waiting.append((share, $0)) }
    }

    /// Gives `share` back and lets in the waiters at the head of the line that now fit.
    public func leave(_ share: Int) {
        taken -= min(max(share, 1), Self.width)
        while let first = waiting.first, taken + first.share <= Self.width {
            waiting.removeFirst()
            taken += first.share
            first.resume.resume()
        }
    }
}
