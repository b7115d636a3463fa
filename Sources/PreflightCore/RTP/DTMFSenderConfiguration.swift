/// How a ``DTMFSender`` plays digits. The defaults follow Twilio's `sendDigits`: 100 ms tones,
/// 50 ms between digits, 500 ms for each `w`.
public struct DTMFSenderConfiguration: Sendable, Hashable {
    /// The payload type bound to "telephone-event" in signaling. Default 101.
    public var payloadType: UInt8 = TelephoneEvent.defaultPayloadType
    /// The RTP clock of the events, Hz: the audio stream's they travel in (RFC 4733 §2.1):
    /// 8,000 beside PCMU (default), 48,000 beside Opus. Durations and timestamps count in it.
    public var clockRate = TelephoneEvent.clockRate
    /// The volume of every tone, 0–63 (−dBm0). Default 10.
    public var volume: UInt8 = 10
    /// How long each tone lasts (ms), 20–5000. Default 100.
    public var toneMilliseconds = 100
    /// Silence after each tone before the next digit (ms), 0–5000. Default 50.
    public var gapMilliseconds = 50
    /// The pause a `w` adds (ms), 0–60000. Default 500.
    public var pauseMilliseconds = 500
    /// The interval between packets of one event (ms), 10–100, matching the audio packets the
    /// events stand in for. Default 20.
    public var packetIntervalMilliseconds = 20
    /// How many times the end packet is sent (RFC 4733 §2.5.1.4 recommends 3), 1–10. Default 3.
    public var endPacketCount = 3
    /// The longest digit string accepted. Default 256.
    public var maximumDigitCount = 256

    /// The defaults.
    public init() {}
}
