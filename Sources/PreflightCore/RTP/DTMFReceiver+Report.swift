extension DTMFReceiver {
    /// What a telephone-event packet told the receiver that it did not know yet.
    public enum Report: Sendable, Hashable {
        /// A new event (RTP timestamp not seen before): reported once, from whichever of its
        /// packets arrives first.
        case started(event: UInt8, timestamp: UInt32)
        /// The event's end packet arrived: its final duration in RTP timestamp units, reported once.
        case ended(event: UInt8, timestamp: UInt32, duration: UInt16)

        /// The DTMF character of the event, `nil` for events other than 0–15.
        public var character: Character? {
            switch self {
            case .started(let event, _), .ended(let event, _, _): TelephoneEvent(event: event, duration: 0).character
            }
        }
    }
}
