/// Turns received telephone-event packets (RFC 4733) into digits, each reported once.
///
/// Events are told apart by RTP timestamp (§2.5.2.1): the first packet of a timestamp not seen
/// before reports ``Report/started(event:timestamp:)``, whether or not it carries the marker bit
/// (the marked first packet may be lost); the first end packet reports
/// ``Report/ended(event:timestamp:duration:)``. Repeated end packets, retransmissions and late
/// packets of an event already reported add nothing, and so do packets of events older than
/// the most recent one that the receiver no longer remembers. State is bounded: the last
/// ``rememberedEventCount`` events.
public struct DTMFReceiver: Sendable {
    /// How many recent events the receiver remembers for deduplication.
    public static let rememberedEventCount = 16

    /// The payload type of "telephone-event/8000" that ``receive(_:)`` accepts.
    public let payloadType: UInt8
    /// Recent events, oldest first: their timestamp and whether their end was reported.
    private var recent: [(timestamp: UInt32, ended: Bool)] = []
    /// The newest event's timestamp, for telling late packets of forgotten events apart.
    private var newest: UInt32?

    /// A receiver for packets of `payloadType`.
    public init(payloadType: UInt8 = TelephoneEvent.defaultPayloadType) {
        self.payloadType = payloadType
    }

    /// Feeds one RTP packet; packets of another payload type are ignored.
    /// - Throws: ``PreflightError`` `.truncated` for a telephone-event payload shorter than 4 bytes.
    public mutating func receive(_ packet: RTPPacket) throws(PreflightError) -> [Report] {
        guard packet.payloadType == payloadType else { return [] }
        return try receive(timestamp: packet.timestamp, payload: packet.payload)
    }

    /// Feeds the RTP timestamp and payload of one telephone-event packet.
    /// - Throws: ``PreflightError`` `.truncated` for a payload shorter than 4 bytes.
    public mutating func receive(timestamp: UInt32, payload: ArraySlice<UInt8>) throws(PreflightError) -> [Report] {
        let event = try TelephoneEvent(decoding: payload)
        var reports: [Report] = []
        let position: Int
        if let known = recent.firstIndex(where: { $0.timestamp == timestamp }) {
            position = known
        } else {
            // Before the newest event and not remembered: a late packet of a forgotten event.
            if let newest, Int32(bitPattern: timestamp &- newest) < 0 { return [] }
            reports.append(.started(event: event.event, timestamp: timestamp))
            if recent.count >= Self.rememberedEventCount { recent.removeFirst() }
            recent.append((timestamp, false))
            newest = timestamp
            position = recent.count &- 1
        }
        if event.isEnd, !recent[position].ended {
            recent[position].ended = true
            reports.append(.ended(event: event.event, timestamp: timestamp, duration: event.duration))
        }
        return reports
    }
}
