/// One RFC 4733 telephone event payload (§2.3): a named event such as a DTMF digit, whether it
/// has ended, its volume and its duration so far.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |     event     |E|R| volume    |          duration             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct TelephoneEvent: Sendable, Hashable {
    /// Size of one event (bytes).
    public static let encodedSize = 4
    /// The payload type usually bound to "telephone-event/8000" (a dynamic type; signaling names it).
    public static let defaultPayloadType: UInt8 = 101
    /// The RTP clock rate of "telephone-event/8000": durations and timestamps count 1/8000 s.
    public static let clockRate = 8000
    /// The largest volume the 6-bit field carries (−63 dBm0).
    public static let maximumVolume: UInt8 = 63
    /// The DTMF events 0–15 as characters (RFC 4733 §3.2, table 7).
    public static let dtmfCharacters: [Character] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#", "A", "B", "C", "D",
    ]

    /// The event code: 0–9 the digits, 10 `*`, 11 `#`, 12–15 A–D; other codes are other events.
    public var event: UInt8
    /// The E bit: this packet reports the end of the event, and ``duration`` is final.
    public var isEnd: Bool
    /// The R bit, reserved: senders set it to 0 and receivers ignore it; kept so that decoding
    /// and encoding give the same bytes.
    public var reserved: Bool
    /// The power level, 0–63, as dBm0 below zero (10 means −10 dBm0).
    public var volume: UInt8
    /// The duration of the event so far, in RTP timestamp units (1/8000 s) from the event's
    /// RTP timestamp.
    public var duration: UInt16

    /// Creates an event.
    public init(event: UInt8, isEnd: Bool = false, reserved: Bool = false, volume: UInt8 = 10, duration: UInt16) {
        self.event = event
        self.isEnd = isEnd
        self.reserved = reserved
        self.volume = volume
        self.duration = duration
    }

    /// The DTMF character of ``event`` (`0`–`9`, `*`, `#`, `A`–`D`), `nil` for other events.
    public var character: Character? {
        Int(event) < Self.dtmfCharacters.count ? Self.dtmfCharacters[Int(event)] : nil
    }

    /// The event code of a DTMF character (`0`–`9`, `*`, `#`, `A`–`D`, lower case too), `nil` for any other.
    public static func event(for character: Character) -> UInt8? {
        // Only a–d have an upper case here; uppercasing any character could give several.
        let lowerLetters: [Character] = ["a", "b", "c", "d"]
        if let letter = lowerLetters.firstIndex(of: character) { return UInt8(truncatingIfNeeded: 12 &+ letter) }
        return dtmfCharacters.firstIndex(of: character).map { UInt8(truncatingIfNeeded: $0) }
    }

    /// Decodes the first event of a telephone-event payload. A payload may hold more than one
    /// 4-byte event (a sender packing several); only the first is read and the rest ignored.
    /// - Throws: ``PreflightError`` `.truncated` for a payload shorter than 4 bytes.
    public init(decoding payload: ArraySlice<UInt8>) throws(PreflightError) {
        guard payload.count >= Self.encodedSize else {
            throw PreflightError(
                code: .truncated, message: "telephone-event: truncated payload: need 4 byte(s), \(payload.count) present")
        }
        let start = payload.startIndex
        let flags = payload[start &+ 1]
        self.init(
            event: payload[start], isEnd: flags & 0x80 != 0, reserved: flags & 0x40 != 0, volume: flags & 0x3F,
            duration: UInt16(payload[start &+ 2]) << 8 | UInt16(payload[start &+ 3]))
    }

    /// Decodes the first event of a telephone-event payload (see the `ArraySlice` overload).
    public init(decoding payload: [UInt8]) throws(PreflightError) {
        try self.init(decoding: payload[...])
    }

    /// The 4-byte payload.
    /// - Throws: ``PreflightError`` `.invalidArgument` for a volume above 63.
    public func encoded() throws(PreflightError) -> [UInt8] {
        guard volume <= Self.maximumVolume else {
            throw PreflightError(code: .invalidArgument, message: "telephone-event: volume \(volume) exceeds 63")
        }
        let flags = (isEnd ? 0x80 : 0) | (reserved ? 0x40 : 0) | volume
        return [event, flags, UInt8(truncatingIfNeeded: duration >> 8), UInt8(truncatingIfNeeded: duration)]
    }
}
