import Logging
import PreflightCore
import Synchronization

/// Writes call Insights events to the store off the signaling path: a session hands its events
/// over and goes on, and a slow or unreachable database never holds a call up. The queue is
/// bounded (``capacity`` batches of at most 100 events, a signaling message's worth: 64 MB at the
/// very worst); what does not fit is dropped and counted.
final class StoreWriter: Sendable {
    /// One batch of a call's events.
    struct Batch: Sendable {
        var callSid: String
        var account: String
        var events: [StoredCallEvent]
    }

    /// Batches queued at most.
    static let capacity = 1_000

    private let stream: AsyncStream<Batch>
    private let continuation: AsyncStream<Batch>.Continuation
    private let counts = Mutex((dropped: 0, failed: 0))

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Batch.self, bufferingPolicy: .bufferingOldest(Self.capacity))
    }

    /// Events not stored: the queue was full, or the store failed them.
    var droppedEvents: Int { counts.withLock { $0.dropped + $0.failed } }

    /// Queues a batch.
    func enqueue(_ batch: Batch) {
        if case .dropped = continuation.yield(batch) {
            counts.withLock { $0.dropped += batch.events.count }
        }
    }

    /// Stores queued batches until the task is cancelled.
    func run(store: ReportStore, logger: Logger) async {
        await withTaskCancellationHandler {
            for await batch in stream {
                do {
                    try await store.appendEvents(batch.events, callSid: batch.callSid, account: batch.account)
                } catch {
                    counts.withLock { $0.failed += batch.events.count }
                    logger.warning("call events not stored", metadata: ["callSid": "\(batch.callSid)", "error": "\(error)"])
                }
            }
        } onCancel: {
            continuation.finish()
        }
    }
}
