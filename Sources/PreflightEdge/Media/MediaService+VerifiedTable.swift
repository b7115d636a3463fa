import CMediaBatch

extension MediaService {
    /// The verified addresses by ``SourceKey``: an open-addressing table (linear probing, at most
    /// half full) over entries that keep their place until removed. Unlike a `Dictionary`'s
    /// index, an entry's number stays valid across inserts, growth and other removals, and can be
    /// checked against its key without trapping, so a read burst looks each source up once,
    /// loads the entries and sessions it found into the cache together, and routes each datagram
    /// by its number.
    ///
    /// The hash is Swift's `Hasher`, seeded at random per process, as a `Dictionary`'s is: a
    /// sender cannot choose addresses that collide. An entry is an address that passed a check
    /// for a live session; a session's entries go with it.
    struct VerifiedTable {
        struct Entry {
            var key: SourceKey
            var peer: VerifiedPeer
        }

        /// A bucket holds an entry's number, or one of these.
        private static let empty: Int32 = -1
        private static let removed: Int32 = -2

        private var buckets: [Int32] = Array(repeating: VerifiedTable.empty, count: 16)
        /// Entries by number; a removed one keeps its place (``live`` false, a placeholder peer)
        /// until an insert takes it again.
        private var entries: [Entry] = []
        private var live: [Bool] = []
        private var free: [Int32] = []
        /// Buckets that are not empty (entries and removal marks): kept at most half the buckets.
        private var used = 0

        /// Entries in the table.
        private(set) var count = 0
        /// Buckets now: a power of two, at least twice the buckets in use.
        var bucketCount: Int { buckets.count }

        init() {}

        /// A key's hash, for ``entry(forKey:hash:)``, ``prefetchBucket(hash:)`` and ``prefetchEntry(hash:)``.
        static func hash(_ key: SourceKey) -> Int {
            var hasher = Hasher()
            hasher.combine(key)
            return hasher.finalize()
        }

        /// The number of the entry with this key; `nil` when there is none.
        func entry(forKey key: SourceKey) -> Int? {
            entry(forKey: key, hash: Self.hash(key))
        }

        /// ``entry(forKey:)`` with the key's ``hash(_:)`` already taken.
        func entry(forKey key: SourceKey, hash: Int) -> Int? {
            bucket(of: key, hash: hash).map { Int(buckets[$0]) }
        }

        /// Whether entry `number` is there and has this key: an entry number kept from before
        /// (a read burst's look-up) is checked with this before it is used.
        func contains(entry number: Int, key: SourceKey) -> Bool {
            number >= 0 && number < entries.count && live[number] && entries[number].key == key
        }

        /// The verified address's entry, by key.
        subscript(key: SourceKey) -> VerifiedPeer? {
            get { entry(forKey: key).map { entries[$0].peer } }
            set {
                let hash = Self.hash(key)
                if let bucket = bucket(of: key, hash: hash) {
                    let number = Int(buckets[bucket])
                    if let newValue {
                        entries[number].peer = newValue
                    } else {
                        buckets[bucket] = Self.removed
                        live[number] = false
                        entries[number].peer = Self.placeholder  // its ufrag freed now
                        free.append(Int32(number))
                        count -= 1
                    }
                } else if let newValue {
                    insert(Entry(key: key, peer: newValue), hash: hash)
                }
            }
        }

        /// An entry by number, changed in place: only for a number ``entry(forKey:)`` gave or
        /// ``contains(entry:key:)`` accepted (the table must not change in between).
        subscript(entry number: Int) -> VerifiedPeer {
            get { entries[number].peer }
            _modify { yield &entries[number].peer }
        }

        /// Removes every entry whose peer matches.
        mutating func removeAll(where matches: (VerifiedPeer) -> Bool) {
            for number in entries.indices where live[number] && matches(entries[number].peer) {
                self[entries[number].key] = nil
            }
        }

        /// Starts loading a key's first bucket into the CPU's cache (a hint, as every prefetch).
        func prefetchBucket(hash: Int) {
            buckets.withUnsafeBufferPointer { buckets in
                guard let base = buckets.baseAddress else { return }
                preflight_media_prefetch(UnsafeRawPointer(base + (hash & (buckets.count - 1))), 1)
            }
        }

        /// Starts loading the entry in a key's first bucket into the CPU's cache (a hint: the
        /// entry may be another key's, or none).
        func prefetchEntry(hash: Int) {
            prefetch(entry: Int(buckets[hash & (buckets.count - 1)]))
        }

        /// Starts loading entry `number` into the CPU's cache (a hint: nothing for a number out
        /// of range).
        func prefetch(entry number: Int) {
            guard number >= 0 else { return }
            entries.withUnsafeBufferPointer { entries in
                guard number < entries.count, let base = entries.baseAddress else { return }
                preflight_media_prefetch(UnsafeRawPointer(base + number), MemoryLayout<Entry>.size)
            }
        }

        /// Where the key's entry is in ``buckets``.
        private func bucket(of key: SourceKey, hash: Int) -> Int? {
            let mask = buckets.count - 1
            var bucket = hash & mask
            // At most half the buckets are used, so an empty one ends every search.
            while true {
                let number = buckets[bucket]
                if number == Self.empty { return nil }
                if number >= 0, entries[Int(number)].key == key { return bucket }
                bucket = (bucket + 1) & mask
            }
        }

        private mutating func insert(_ entry: Entry, hash: Int) {
            if (used + 1) * 2 > buckets.count { rebuild(for: count + 1) }
            let number: Int
            if let reused = free.popLast() {
                number = Int(reused)
                entries[number] = entry
                live[number] = true
            } else {
                number = entries.count
                entries.append(entry)
                live.append(true)
            }
            let mask = buckets.count - 1
            var bucket = hash & mask
            while buckets[bucket] >= 0 { bucket = (bucket + 1) & mask }
            if buckets[bucket] == Self.empty { used += 1 }
            buckets[bucket] = Int32(number)
            count += 1
        }

        /// New buckets for `needed` entries at a quarter full: removal marks go, entries stay
        /// where they are (their numbers stay valid).
        private mutating func rebuild(for needed: Int) {
            var capacity = 16
            while capacity < needed * 4 { capacity *= 2 }
            buckets = Array(repeating: Self.empty, count: capacity)
            used = 0
            let mask = capacity - 1
            for (number, entry) in entries.enumerated() where live[number] {
                var bucket = Self.hash(entry.key) & mask
                while buckets[bucket] != Self.empty { bucket = (bucket + 1) & mask }
                buckets[bucket] = Int32(number)
                used += 1
            }
        }

        private static let placeholder = VerifiedPeer(
            ufrag: "", session: SessionTable.Slot(index: -1, generation: 0), rate: TokenBucket(rate: 0, burst: 1))
    }
}
