import CMediaBatch
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
        /// Addresses verified for each slot's session (``verifiedAddresses(in:)``).
        private var addresses: [Int] = []
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
                    addresses.append(0)
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

        /// Addresses verified now for the session in `slot` (a session replaced under its ufrag
        /// keeps its slot, its addresses and their count); 0 for a stale slot.
        func verifiedAddresses(in slot: Slot) -> Int {
            contains(slot) ? addresses[slot.index] : 0
        }

        /// Counts an address verified for (`by` 1) or taken from (-1) the session in `slot`;
        /// nothing for a stale slot.
        mutating func countVerifiedAddresses(in slot: Slot, by change: Int) {
            guard contains(slot) else { return }
            addresses[slot.index] = max(0, addresses[slot.index] + change)
        }

        /// The bytes of a session an echo reads and changes: its first fields and its receive
        /// statistics (``Session`` keeps them first).
        static let hotBytes = (MemoryLayout<Session>.offset(of: \Session.uplink) ?? 0) + MemoryLayout<ReceiveStatistics>.size

        /// Starts loading the fields an echo uses of the session in `slot` into the CPU's cache:
        /// a hint (nothing is read, a stale slot is harmless), so that the sessions of a whole
        /// read burst load at once instead of one cache miss after another.
        func prefetch(_ slot: Slot) {
            storage.withUnsafeBufferPointer { sessions in
                guard slot.index >= 0, slot.index < sessions.count, let base = sessions.baseAddress else { return }
                preflight_media_prefetch(UnsafeRawPointer(base + slot.index), Self.hotBytes)
            }
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
            addresses[index] = 0
            generations[index] &+= 1
            free.append(index)
            return removed
        }
    }
}
