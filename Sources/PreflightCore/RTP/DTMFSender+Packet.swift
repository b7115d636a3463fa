extension DTMFSender {
    /// One telephone-event packet to send: the RTP fields the sender decides and when. The
    /// caller's RTP stream adds its SSRC and the next sequence number.
    public struct Packet: Sendable, Hashable {
        /// When to send it, on the clock of the sender's start time (seconds).
        public var dueTime: Double
        /// When to send it, in RTP timestamp units (of ``DTMFSenderConfiguration/clockRate``) after the sender's start: exact,
        /// where ``dueTime`` is rounded.
        public var offset: Int
        /// The marker bit: set on the first packet of each event (RFC 4733 §2.5.1.3).
        public var marker: Bool
        /// The payload type.
        public var payloadType: UInt8
        /// The RTP timestamp: that of the event's start, the same for all its packets (§2.5.1.2).
        public var timestamp: UInt32
        /// The event this packet reports.
        public var event: TelephoneEvent
        /// The RTP payload, ``event`` encoded.
        public var payload: [UInt8]
    }
}
