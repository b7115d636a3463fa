/// Plays a digit string as RFC 4733 telephone events, sans-IO: it computes when each packet is
/// due, and the caller's RTP stream sends them with its SSRC and sequence numbers.
///
/// Each digit is an event of ``DTMFSenderConfiguration/toneMilliseconds``: a packet every
/// ``DTMFSenderConfiguration/packetIntervalMilliseconds`` with the event's start as RTP
/// timestamp and a growing duration, the marker bit on the first (RFC 4733 §2.5.1), then the end
/// packet (E bit, final duration) sent ``DTMFSenderConfiguration/endPacketCount`` times at the
/// same interval (§2.5.1.4). The next digit starts ``DTMFSenderConfiguration/gapMilliseconds``
/// after the tone; each `w` adds ``DTMFSenderConfiguration/pauseMilliseconds`` (Twilio's
/// `sendDigits`). While an event plays the caller sends no audio (§2.5.1.1): see
/// ``isEventInProgress(at:)``.
///
/// Drive it with ``poll(now:)`` at ``nextDueTime`` (or on every audio tick).
public struct DTMFSender: Sendable {
    /// The character that pauses instead of playing a digit.
    public static let pauseCharacter: Character = "w"
    /// The characters a digit string may hold besides ``pauseCharacter``: `0`–`9`, `*`, `#`.
    public static let digitCharacters: Set<Character> = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#"]

    /// The settings the schedule was computed with.
    public let configuration: DTMFSenderConfiguration
    /// The time of the first digit's start (seconds, on the caller's clock).
    public let startTime: Double
    /// The RTP timestamp of the caller's stream at ``startTime``.
    public let startTimestamp: UInt32
    /// Every packet of the digit string, in the order they are due.
    public let schedule: [Packet]
    /// When the whole string is over, the last gap included, in RTP timestamp units after ``startTime``.
    public let endOffset: Int
    /// Each event's span in RTP timestamp units after ``startTime``: its start to its last end packet.
    let eventSpans: [ClosedRange<Int>]
    /// Index in ``schedule`` of the next packet ``poll(now:)`` hands out.
    public private(set) var nextPacketIndex = 0

    /// Computes the schedule for `digits`.
    /// - Parameters:
    ///   - digits: `0`–`9`, `*`, `#` and `w`, at most ``DTMFSenderConfiguration/maximumDigitCount``
    ///     characters.
    ///   - startTime: when the first digit starts (seconds, on the clock the caller polls with).
    ///   - startTimestamp: the RTP timestamp of the caller's stream at `startTime`.
    /// - Throws: ``PreflightError`` `.invalidArgument` for an empty or too long string, a
    ///   character outside the set (named in the message), or a configuration value out of range.
    public init(
        digits: String, startTime: Double, startTimestamp: UInt32, configuration: DTMFSenderConfiguration = .init()
    ) throws(PreflightError) {
        try Self.validate(configuration)
        let characters = Array(digits.prefix(max(0, configuration.maximumDigitCount) &+ 1))
        guard !characters.isEmpty, characters.count <= configuration.maximumDigitCount else {
            throw PreflightError(
                code: .invalidArgument,
                message: "DTMF: a digit string has 1 to \(configuration.maximumDigitCount) characters, got \(characters.isEmpty ? "none" : "more")")
        }
        let samplesPerMillisecond = configuration.clockRate / 1000
        let tone = configuration.toneMilliseconds &* samplesPerMillisecond
        let interval = configuration.packetIntervalMilliseconds &* samplesPerMillisecond
        var packets: [Packet] = []
        var spans: [ClosedRange<Int>] = []
        var offset = 0
        func packet(at packetOffset: Int, marker: Bool, event: TelephoneEvent, timestamp: UInt32) throws(PreflightError) -> Packet {
            Packet(
                dueTime: startTime + Double(packetOffset) / Double(configuration.clockRate), offset: packetOffset,
                marker: marker, payloadType: configuration.payloadType, timestamp: timestamp, event: event,
                payload: try event.encoded())
        }
        for character in characters {
            if character == Self.pauseCharacter {
                offset &+= configuration.pauseMilliseconds &* samplesPerMillisecond
                continue
            }
            guard Self.digitCharacters.contains(character), let code = TelephoneEvent.event(for: character) else {
                throw PreflightError(
                    code: .invalidArgument,
                    message: "DTMF: \"\(character)\" is not a digit to send (0-9, *, #, or w to pause)")
            }
            let timestamp = startTimestamp &+ UInt32(truncatingIfNeeded: offset)
            var elapsed = 0
            while elapsed < tone {
                let duration = UInt16(clamping: min(elapsed &+ interval, tone))
                let event = TelephoneEvent(event: code, volume: configuration.volume, duration: duration)
                packets.append(try packet(at: offset &+ elapsed, marker: elapsed == 0, event: event, timestamp: timestamp))
                elapsed &+= interval
            }
            let end = TelephoneEvent(event: code, isEnd: true, volume: configuration.volume, duration: UInt16(clamping: tone))
            for repetition in 0..<configuration.endPacketCount {
                packets.append(try packet(at: offset &+ tone &+ repetition &* interval, marker: false, event: end, timestamp: timestamp))
            }
            spans.append(offset...(offset &+ tone &+ (configuration.endPacketCount &- 1) &* interval))
            offset &+= tone &+ configuration.gapMilliseconds &* samplesPerMillisecond
        }
        // A short gap can make a digit start before the previous one's end packets are all out;
        // ties keep their order, so each digit's own packets stay in sequence.
        schedule = packets.enumerated()
            .sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }
            .map(\.element)
        eventSpans = spans
        endOffset = offset
        self.configuration = configuration
        self.startTime = startTime
        self.startTimestamp = startTimestamp
    }

    /// The packets due at or before `now` that were not handed out yet, in order; each packet is
    /// handed out once.
    public mutating func poll(now: Double) -> [Packet] {
        var due: [Packet] = []
        while nextPacketIndex < schedule.count, schedule[nextPacketIndex].dueTime <= now {
            due.append(schedule[nextPacketIndex])
            nextPacketIndex &+= 1
        }
        return due
    }

    /// When the next packet is due, `nil` once every packet was handed out.
    public var nextDueTime: Double? {
        nextPacketIndex < schedule.count ? schedule[nextPacketIndex].dueTime : nil
    }

    /// Whether every packet was handed out.
    public var isFinished: Bool { nextPacketIndex >= schedule.count }

    /// When the whole string is over, the last gap included (seconds).
    public var endTime: Double { time(at: endOffset) }

    /// Whether an event plays at `now`, from its start to its last end packet: the caller
    /// suppresses audio frames then (RFC 4733 §2.5.1.1).
    public func isEventInProgress(at now: Double) -> Bool {
        // Times computed as the packets' due times are, so that polling at a due time agrees.
        eventSpans.contains { time(at: $0.lowerBound) <= now && now <= time(at: $0.upperBound) }
    }

    /// The time `offset` RTP timestamp units after ``startTime``.
    func time(at offset: Int) -> Double {
        startTime + Double(offset) / Double(configuration.clockRate)
    }

    static func validate(_ configuration: DTMFSenderConfiguration) throws(PreflightError) {
        let checks: [(String, Int, ClosedRange<Int>)] = [
            ("payloadType", Int(configuration.payloadType), 0...127),
            ("volume", Int(configuration.volume), 0...Int(TelephoneEvent.maximumVolume)),
            ("toneMilliseconds", configuration.toneMilliseconds, 20...5000),
            ("gapMilliseconds", configuration.gapMilliseconds, 0...5000),
            ("pauseMilliseconds", configuration.pauseMilliseconds, 0...60_000),
            ("packetIntervalMilliseconds", configuration.packetIntervalMilliseconds, 10...100),
            ("endPacketCount", configuration.endPacketCount, 1...10),
            ("maximumDigitCount", configuration.maximumDigitCount, 1...4096),
        ]
        for (name, value, range) in checks where !range.contains(value) {
            throw PreflightError(
                code: .invalidArgument, message: "DTMF: \(name) is \(value), must be \(range.lowerBound)–\(range.upperBound)")
        }
        guard [8000, 16000, 48000].contains(configuration.clockRate) else {
            throw PreflightError(code: .invalidArgument, message: "DTMF: clockRate is \(configuration.clockRate), must be 8000, 16000 or 48000")
        }
        // The duration field has 16 bits: 8.19 s at 8 kHz, 1.36 s at 48 kHz. A longer tone would
        // need RFC 4733 §2.5.2.3's segments, which this sender does not make.
        let longest = 65535 / (configuration.clockRate / 1000)
        guard configuration.toneMilliseconds <= longest else {
            throw PreflightError(
                code: .invalidArgument,
                message: "DTMF: toneMilliseconds is \(configuration.toneMilliseconds), at most \(longest) at \(configuration.clockRate) Hz")
        }
    }
}
