import Logging
import PreflightCore
import Synchronization

/// Writes call Insights events to the store off the signaling path: a session hands its events
/// over and goes on, and a slow or unreachable database never holds a call up. The queue is
/// bounded (``capacity`` batches of at most 100 events, a signaling message's worth: 64 MB at the
/// very worst); what does not fit is dropped and counted, and so is what the store refuses (a
/// poster over its quota, ``StoreQuota``) or fails to store.
final class StoreWriter: Sendable {
    /// One batch of a call's events.
    struct Batch: Sendable {
        var callSid: String
        var account: String
        var events: [StoredCallEvent]
    }

    /// Events not stored, by why.
    struct Counts: Sendable, Hashable {
        /// The queue was full.
        var dropped = 0
        /// The poster's identity or account was over its quota.
        var overQuota = 0
        /// The store failed them.
        var failed = 0
    }

    /// Batches queued at most.
    static let capacity = 1_000

    private let stream: AsyncStream<Batch>
    private let continuation: AsyncStream<Batch>.Continuation
    private let counts = Mutex(Counts())

    /// Told of every batch that is not stored, with why.
    private let notStored: @Sendable (Batch) -> Void

    /// - Parameter notStored: told of every batch that is not stored (the queue was full, the
    ///   poster over its quota, the store failed), for the call's `dropped` count.
    init(notStored: @escaping @Sendable (Batch) -> Void = { _ in }) {
        (stream, continuation) = AsyncStream.makeStream(of: Batch.self, bufferingPolicy: .bufferingOldest(Self.capacity))
        self.notStored = notStored
    }

    /// Events not stored, by why.
    var droppedEvents: Counts { counts.withLock { $0 } }

    /// Queues a batch.
    func enqueue(_ batch: Batch) {
        if case .dropped = continuation.yield(batch) {
            counts.withLock { $0.dropped += batch.events.count }
            notStored(batch)
        }
    }

    /// Stores queued batches until the task is cancelled.
    func run(store: ReportStore, logger: Logger) async {
        await withTaskCancellationHandler {
            for await batch in stream {
                do throws(PreflightError) {
                    try await store.appendEvents(batch.events, callSid: batch.callSid, account: batch.account)
                } catch where error.code == .storeQuotaExceeded {
                    // A flood's refusals are counted, not logged one by one.
                    counts.withLock { $0.overQuota += batch.events.count }
                    notStored(batch)
                } catch {
                    counts.withLock { $0.failed += batch.events.count }
                    notStored(batch)
                    logger.warning("call events not stored", metadata: ["callSid": "\(batch.callSid)", "error": "\(error)"])
                }
            }
        } onCancel: {
            continuation.finish()
        }
    }
}
