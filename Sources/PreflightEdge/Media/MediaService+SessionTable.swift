import NIOCore
import PreflightCore

extension MediaService {
    /// The sessions by their local ufrag, each in a numbered slot: a verified address keeps its
    /// session's ``Slot``, so that a datagram reaches its session by index, without hashing the
    /// ufrag. A slot that is freed gets a new generation, so a slot kept from before is found
    /// stale instead of reaching the session that took the slot since.
    struct SessionTable {
        /// Where a session is: its slot's index and the generation it had when the session took it.
        struct Slot: Equatable {
            var index: Int
            var generation: UInt32
        }

        private var storage: [Session] = []
        private var generations: [UInt32] = []
        private var live: [Bool] = []
        private var free: [Int] = []
        private var slots: [String: Int] = [:]

        /// Sessions open now.
        var count: Int { slots.count }

        /// The session with this local ufrag. Setting a session for a ufrag that has one replaces
        /// it in the same slot (addresses verified for it stay); setting `nil` removes it.
        subscript(ufrag: String) -> Session? {
            get { slots[ufrag].map { storage[$0] } }
            set {
                guard let newValue else {
                    removeValue(forKey: ufrag)
                    return
                }
                if let index = slots[ufrag] {
                    storage[index] = newValue
                } else if let index = free.popLast() {
                    storage[index] = newValue
                    live[index] = true
                    slots[ufrag] = index
                } else {
                    storage.append(newValue)
                    generations.append(0)
                    live.append(true)
                    slots[ufrag] = storage.count - 1
                }
            }
        }

        /// Where the session with this ufrag is; `nil` when there is none.
        func slot(of ufrag: String) -> Slot? {
            slots[ufrag].map { Slot(index: $0, generation: generations[$0]) }
        }

        /// Whether `slot` still holds the session it was taken for.
        func contains(_ slot: Slot) -> Bool {
            slot.index >= 0 && slot.index < storage.count && live[slot.index] && generations[slot.index] == slot.generation
        }

        /// The session in a slot, changed in place: only for a slot ``contains(_:)`` accepted.
        subscript(slot: Slot) -> Session {
            get { storage[slot.index] }
            _modify { yield &storage[slot.index] }
        }

        /// Removes the session with this ufrag and returns it; its slot's generation moves on.
        @discardableResult
        mutating func removeValue(forKey ufrag: String) -> Session? {
            guard let index = slots.removeValue(forKey: ufrag) else { return nil }
            // The slot keeps a small placeholder, so that the session's buffers are freed now.
            let removed = storage[index]
            storage[index] = Session(
                credentials: ICELiteCredentials(localUfrag: "", localPassword: "", remoteUfrag: ""), key: STUNIntegrityKey([]),
                application: nil, format: removed.format, ssrc: 0, sequence: 0)
            live[index] = false
            generations[index] &+= 1
            free.append(index)
            return removed
        }
    }
}
