import Dispatch
@testable import Preflight
import PreflightTesting
import Synchronization
import Testing

/// The handle every feature's run is followed through, without a run: events in order, one
/// outcome, streams and waiters that never hang on an ended run.
struct RunHandleTests {
    typealias Handle = RunHandle<Int, String, [Int]>

    /// A count shared with the waiting tasks.
    final class Count: Sendable {
        let value = Mutex(0)
    }

    /// A listener cancelled while events flow: the runtime runs the stream's termination under
    /// the listener task's lock while an event resumes that task under the handle's lock. A
    /// termination that took the handle's lock deadlocked the two (a call froze at its end).
    @Test(.timeLimit(.minutes(2))) func cancellingAListenerWhileEventsFlowNeverDeadlocks() async {
        let handle = Handle([])
        let emitter = Task.detached {
            var next = 0
            while !Task.isCancelled {
                handle.emit(next)
                next += 1
            }
        }
        for _ in 0..<3_000 {
            let events = handle.events()
            let listener = Task { for await _ in events {} }
            await Task.yield()
            listener.cancel()
            await listener.value
        }
        emitter.cancel()
        await emitter.value
        // The listeners that left are dropped at the next event, not kept.
        handle.emit(-1)
        #expect(handle.subscriberCount == 0)
    }

    @Test func eventsArriveInOrderAndTheFinalOneEndsTheStream() async throws {
        let handle = Handle([])
        let events = handle.events()
        handle.emit { seen in
            seen.append(1)
            return 1
        }
        handle.emit(2)
        handle.finish(.success("done")) { seen in
            seen.append(3)
            return 3
        }
        // Nothing after the end: no event, no second outcome, no change of state.
        handle.emit(4)
        handle.finish(.failure(PreflightError(code: .cancelled, message: "late"))) { seen in
            seen.append(5)
            return 5
        }
        var received: [Int] = []
        for await event in events { received.append(event) }
        #expect(received == [1, 2, 3])
        #expect(handle.withLock { $0 } == [1, 3])
        #expect(try handle.outcome?.get() == "done")
    }

    @Test func aStreamOrAResultAfterTheEndGetsTheEndAtOnce() async throws {
        let handle = Handle([])
        handle.finish(.failure(PreflightError(code: .mediaConnectionFailed, message: "lost"))) { _ in 9 }
        var late: [Int] = []
        for await event in handle.events() { late.append(event) }
        #expect(late == [9])
        let error = await #expect(throws: PreflightError.self) { try await handle.result() }
        #expect(error?.code == .mediaConnectionFailed)
    }

    @Test func anEndWithoutAFinalEventFinishesTheStreams() async {
        let handle = Handle([])
        let events = handle.events()
        handle.emit(1)
        handle.finish(.success("quiet")) { _ in nil }
        var received: [Int] = []
        for await event in events { received.append(event) }
        #expect(received == [1])
        var late = 0
        for await _ in handle.events() { late += 1 }
        #expect(late == 0)
    }

    @Test func everyWaiterGetsTheOutcome() async throws {
        let handle = Handle([])
        let waiting = Count()
        let results = await withTaskGroup(of: String?.self) { group -> [String?] in
            for _ in 0..<3 {
                group.addTask {
                    waiting.value.withLock { $0 += 1 }
                    return try? await handle.result()
                }
            }
            // The waiters may or may not be parked yet: either way they get the outcome.
            _ = await eventually { waiting.value.withLock { $0 } == 3 }
            handle.finish(.success("all")) { _ in nil }
            var results: [String?] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(results == ["all", "all", "all"])
    }

    @Test func cancellingAWaitEndsTheWaitNotTheRun() async throws {
        let handle = Handle([])
        let parked = Count()
        let waiter = Task<PreflightError.Code?, Never> {
            parked.value.withLock { $0 = 1 }
            do throws(PreflightError) {
                _ = try await handle.result()
                return nil
            } catch {
                return error.code
            }
        }
        _ = await eventually { parked.value.withLock { $0 } == 1 }
        waiter.cancel()
        #expect(await waiter.value == .cancelled)
        #expect(!handle.isFinished)
        handle.finish(.success("still")) { _ in nil }
        #expect(try await handle.result() == "still")
    }

    /// The adapter sees every event in order, each on the queue it was given.
    @Test func theDelegateAdapterSeesTheSameEventsOnItsQueue() async {
        let handle = Handle([])
        let adapted = Mutex<[Int]>([])
        let onQueue = Mutex<[Bool]>([])
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "preflight.tests.adapter")
        queue.setSpecific(key: key, value: 1)
        handle.adapt(on: queue) { event in
            onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key) == 1) }
            adapted.withLock { $0.append(event) }
        }
        for event in 1...5 { handle.emit(event) }
        handle.finish(.success("end")) { _ in 6 }
        #expect(await eventually { adapted.withLock { $0 } == [1, 2, 3, 4, 5, 6] })
        #expect(onQueue.withLock { $0 } == Array(repeating: true, count: 6))
    }
}
