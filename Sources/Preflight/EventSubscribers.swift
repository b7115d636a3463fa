/// The subscribers of one object's events, kept under its owner's lock: an `AsyncStream` each
/// (livekit's pattern: a delegate is one more subscriber). Once the final event went out, a new
/// subscriber gets that event and finishes at once, so awaiting a stream never hangs.
struct EventSubscribers<Event: Sendable>: Sendable {
    private var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    private var nextKey = 0
    /// The final event, once sent.
    private(set) var terminal: Event?
    /// Whether the events ended (with or without a final event).
    private(set) var ended = false

    /// Adds `continuation`; returns its key, or `nil` when the events already ended (it then got
    /// the final event and was finished: call this before setting its `onTermination`).
    mutating func add(_ continuation: AsyncStream<Event>.Continuation) -> Int? {
        if ended {
            if let terminal { continuation.yield(terminal) }
            continuation.finish()
            return nil
        }
        let key = nextKey
        nextKey += 1
        continuations[key] = continuation
        return key
    }

    mutating func remove(_ key: Int) {
        continuations.removeValue(forKey: key)
    }

    /// Sends `event` to every subscriber (nothing after the final event).
    func yield(_ event: Event) {
        guard !ended else { return }
        for continuation in continuations.values { continuation.yield(event) }
    }

    /// Sends the final event and returns the subscribers to finish: outside the owner's lock,
    /// since finishing runs their `onTermination`, which takes it. `nil` when already ended.
    mutating func end(with event: Event) -> [AsyncStream<Event>.Continuation]? {
        guard !ended else { return nil }
        yield(event)
        terminal = event
        ended = true
        defer { continuations.removeAll() }
        return Array(continuations.values)
    }

    /// Ends the events with no final event (a run whose end has no event of its own): new
    /// subscribers finish at once. Returns the subscribers to finish, outside the owner's lock.
    mutating func endWithoutEvent() -> [AsyncStream<Event>.Continuation] {
        guard !ended else { return [] }
        ended = true
        defer { continuations.removeAll() }
        return Array(continuations.values)
    }
}
