/// The subscribers of one object's events, kept under its owner's lock: an `AsyncStream` each
/// (livekit's pattern: a delegate is one more subscriber). Once the final event went out, a new
/// subscriber gets that event and finishes at once, so awaiting a stream never hangs.
///
/// A subscriber that stopped listening is dropped at the next event, when its stream says it
/// terminated: never from the stream's `onTermination`. That handler runs while the Swift runtime
/// holds the cancelled listener's task lock, and the owner yields under its own lock, which
/// resumes that very task (taking its task lock): a handler that took the owner's lock would
/// deadlock the two (it did: a call's sample stuck against the command's `cancelAll()`).
struct EventSubscribers<Event: Sendable>: Sendable {
    private var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    private var nextKey = 0
    /// The final event, once sent.
    private(set) var terminal: Event?
    /// Whether the events ended (with or without a final event).
    private(set) var ended = false

    /// Adds `continuation`; returns its key, or `nil` when the events already ended (it then got
    /// the final event and was finished).
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

    /// How many subscribers are kept.
    var count: Int { continuations.count }

    mutating func remove(_ key: Int) {
        continuations.removeValue(forKey: key)
    }

    /// Sends `event` to every subscriber (nothing after the final event), dropping those whose
    /// stream terminated.
    mutating func yield(_ event: Event) {
        guard !ended else { return }
        var gone: [Int] = []
        for (key, continuation) in continuations {
            if case .terminated = continuation.yield(event) { gone.append(key) }
        }
        for key in gone { continuations.removeValue(forKey: key) }
    }

    /// Sends the final event and returns the subscribers to finish (outside the owner's lock:
    /// finishing runs their `onTermination`, whatever a caller set there). `nil` when already ended.
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
