extension RTCPReportBlock {
    /// The round-trip time this block gives (RFC 3550 §6.4.1): A − LSR − DLSR, in ms, where A is
    /// the block's arrival time on the same clock as the sender report it answers; `nil` when the
    /// block answers no sender report (LSR 0) or the result is negative.
    public func roundTripTime(arrival: NTPTimestamp) -> Double? {
        guard lastSenderReport != 0 else { return nil }
        let units = arrival.middle32Bits &- lastSenderReport &- delaySinceLastSenderReport
        // A wrap to a huge value means a negative result: an inconsistent clock, not an RTT.
        guard units < 0x8000_0000 else { return nil }
        return Double(units) / 65536 * 1000
    }
}
