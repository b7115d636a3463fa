/// The subscribers of one object's events, kept under its owner's lock: an `AsyncStream` each
/// (livekit's pattern: a delegate is one more subscriber). Once the final event went out, a new
/// subscriber gets that event and finishes at once, so awaiting a stream never hangs.
struct EventSubscribers<Event: Sendable>: Sendable {
    private var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    private var nextKey = 0
    /// The final event, once sent.
    private(set) var terminal: Event?

    /// Adds `continuation`; returns its key, or `nil` when the events already ended (it then got
    /// the final event and was finished: call this before setting its `onTermination`).
    mutating func add(_ continuation: AsyncStream<Event>.Continuation) -> Int? {
        if let terminal {
            continuation.yield(terminal)
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
        guard terminal == nil else { return }
        for continuation in continuations.values { continuation.yield(event) }
    }

    /// Sends the final event and returns the subscribers to finish: outside the owner's lock,
    /// since finishing runs their `onTermination`, which takes it. `nil` when already ended.
    mutating func end(with event: Event) -> [AsyncStream<Event>.Continuation]? {
        guard terminal == nil else { return nil }
        yield(event)
        terminal = event
        defer { continuations.removeAll() }
        return Array(continuations.values)
    }
}
