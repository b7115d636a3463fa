extension BandwidthEstimator {
    /// Where the sender's final hold (at its ceiling, or an overdrive whose knee was noise) begins,
    /// on the clock the caller knows it by.
    public enum Hold: Sendable, Hashable {
        /// Packets sent at or after this time, on the sender's clock: the uplink, where the
        /// client sends and knows each send time.
        case sentFrom(Double)
        /// Packets that arrived at or after this time, on the receiver's clock: the downlink,
        /// where the client decides the rate but the edge's clock stamps the sends (add the
        /// request's way to the edge and the packets' way back to when the hold was asked for).
        case arrivedFrom(Double)

        func contains(_ packet: ProbeArrival) -> Bool {
            switch self {
            case .sentFrom(let time): packet.sendTime >= time
            case .arrivedFrom(let time): packet.arrivalTime >= time
            }
        }
    }
}
