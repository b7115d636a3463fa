/// The sliding replay list of RFC 3711 §3.3.2: the highest index seen and a 64-bit mask of the
/// indexes just below it. Fixed size, whatever the input.
struct SRTPReplayWindow: Sendable {
    /// How many indexes, counting the highest, the window remembers.
    static let size: UInt64 = 64

    /// The highest index accepted, `nil` before the first.
    private(set) var highest: UInt64?
    /// Bit n set: index `highest - n` was accepted.
    private var mask: UInt64 = 0

    /// Why `index` must be refused, or `nil` when it is new.
    func refusal(of index: UInt64) -> String? {
        guard let highest, index <= highest else { return nil }
        let age = highest - index
        if age >= Self.size { return "index \(index) is older than the \(Self.size)-packet window below \(highest)" }
        if mask & (1 << age) != 0 { return "index \(index) was already received" }
        return nil
    }

    /// Records `index` as received; call only after ``refusal(of:)`` said nothing and the packet
    /// authenticated.
    mutating func accept(_ index: UInt64) {
        guard let highest else {
            self.highest = index
            mask = 1
            return
        }
        if index > highest {
            let shift = index - highest
            mask = shift >= Self.size ? 1 : (mask << shift) | 1
            self.highest = index
        } else {
            let age = highest - index
            if age < Self.size { mask |= 1 << age }
        }
    }
}
