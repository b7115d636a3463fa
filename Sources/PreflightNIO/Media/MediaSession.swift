import NIOCore
import NIOPosix
@_spi(Testing) import PreflightCore
import Synchronization

/// RTP and RTCP over whatever route its `transmit` function sends on (an ICE agent's selected
/// pair): paced sending from a ``MediaSource``, reception with per-stream statistics (a
/// ``CallMeter``: loss, jitter, RTT from echoes or RTCP, the remote side's view of the uplink),
/// RTCP sender reports, and once-a-second samples.
///
/// Every timestamp is taken on one monotonic clock from ``origin``; wall-clock figures are that
/// plus ``wallClockOrigin``, so they never jump with the system clock.
public final class MediaSession: Sendable {
    /// The session's settings.
    public let configuration: MediaSessionConfiguration
    /// Time 0 of the session's clock.
    public let origin: ContinuousClock.Instant
    /// Wall-clock milliseconds since the Unix epoch at ``origin``.
    public let wallClockOrigin: Double
    /// Where frames are paced (the media socket's, so that packets are written without a hop).
    public let eventLoop: any EventLoop
    let transmit: @Sendable ([UInt8]) -> Bool
    let telephoneEvents: (@Sendable (DTMFReceiver.Report) -> Void)?
    let audioReceived: (@Sendable ([Int16]) -> Void)?
    let state: Mutex<State>

    struct State: Sendable {
        var meter = CallMeter()
        var echoRoundTrips = 0
        var sending = true
        /// SRTP (RFC 7714) once ``encrypt(sending:receiving:)`` turned it on.
        var protection: Protection?
        /// Packets that did not authenticate or were replayed: dropped.
        var undecryptable = 0
        /// RFC 4733 telephone events received (payload type 101).
        var dtmf = DTMFReceiver()
        /// The newest sequence number whose audio was decoded (and went to `audioReceived`).
        var lastPlayed: UInt16?
        /// The call's codec: what the received audio is decoded with, whose clock scales the RTP
        /// timestamps and RTCP jitter. PCMU until ``use(_:)`` says otherwise.
        var codec: any AudioCodec = PCMUAudioCodec()
    }

    struct Protection: Sendable {
        var send: SRTPContext
        var receive: SRTPContext
    }

    /// Creates a session.
    /// - Parameters:
    ///   - configuration: SSRC, sequence numbers, clock rate.
    ///   - origin: time 0 of the session's clock.
    ///   - wallClockOrigin: wall-clock milliseconds since the Unix epoch at `origin`.
    ///   - eventLoop: where frames are paced: the media socket's; any of NIO's by default.
    ///   - transmit: sends one RTP or RTCP packet on the current route; `false` when there is none
    ///     (the packet is dropped and not counted as sent).
    ///   - telephoneEvents: receives each RFC 4733 event (DTMF digit) the remote side sends, once
    ///     as it starts and once as it ends; `nil` to ignore them.
    ///   - audioReceived: receives each audio packet's audio, decoded by the session's codec to
    ///     8 kHz linear PCM, in arrival order (duplicates and packets from before the newest are
    ///     left out; a codec that conceals losses fills gaps of up to 3 packets); `nil` to only
    ///     measure it.
    public init(
        configuration: MediaSessionConfiguration, origin: ContinuousClock.Instant, wallClockOrigin: Double,
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any(), transmit: @escaping @Sendable ([UInt8]) -> Bool, telephoneEvents: (@Sendable (DTMFReceiver.Report) -> Void)? = nil,
        audioReceived: (@Sendable ([Int16]) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.origin = origin
        self.wallClockOrigin = wallClockOrigin
        self.eventLoop = eventLoop
        self.transmit = transmit
        self.telephoneEvents = telephoneEvents
        self.audioReceived = audioReceived
        var meter = CallMeter()
        meter.countsReorderedAsLost = configuration.countsReorderedAsLost
        state = Mutex(State(meter: meter))
    }

    /// Decodes and measures received audio with `codec` from now on (the answer's codec): call
    /// it before media flows. The sources sending on the session encode with the same codec.
    public func use(_ codec: any AudioCodec) {
        state.withLock { $0.codec = codec }
    }

    /// The codec received audio is decoded with.
    public var codec: any AudioCodec { state.withLock { $0.codec } }

    /// The statistics so far.
    public var meter: CallMeter { state.withLock { $0.meter } }

    /// Encrypts what the session sends with `sending` and accepts only what authenticates with
    /// `receiving` from now on (SRTP and SRTCP, AEAD_AES_128_GCM): call it before media flows.
    /// - Throws: 70002 for keying material that makes no context.
    public func encrypt(sending: SRTPKeyingMaterial, receiving: SRTPKeyingMaterial) throws(PreflightError) {
        let protection = Protection(send: try SRTPContext(keyingMaterial: sending), receive: try SRTPContext(keyingMaterial: receiving))
        state.withLock { $0.protection = protection }
    }

    /// Whether media is encrypted.
    public var isEncrypted: Bool { state.withLock { $0.protection != nil } }

    /// Received packets dropped because they did not authenticate (SRTP) or were replayed.
    public var undecryptablePackets: Int { state.withLock { $0.undecryptable } }

    /// `packet` as it goes on the wire: encrypted when SRTP is on; `nil` when it cannot be.
    func protect(_ packet: [UInt8], rtcp: Bool) -> [UInt8]? {
        state.withLock { state in
            guard var protection = state.protection else { return packet }
            defer { state.protection = protection }
            return try? (rtcp ? protection.send.protectRTCP(packet) : protection.send.protectRTP(packet))
        }
    }

    /// Sends `source`'s frames on their schedule until it ends, ``stopSending()`` is called, or
    /// the task is cancelled. The schedule is absolute (a late wake-up does not shift later
    /// frames) and runs on ``eventLoop``: one timer per frame, the packets written from it, no
    /// task hop per packet.
    public func send(_ source: some MediaSource) async {
        let pacer = FramePacer(session: self, source: source)
        await withTaskCancellationHandler {
            await pacer.run()
        } onCancel: {
            // The handler runs under the runtime's lock of this task; stopping here would cancel
            // the pending frame under NIO's lock while the loop, firing that frame under NIO's
            // lock, resumes this task's continuation (taking the runtime's lock): a deadlock (a
            // test's `stop()` froze the suite so). The stop goes to the pacer's loop instead.
            eventLoop.execute { pacer.stop() }
        }
    }

    /// Sends one frame's packets (on the pacer's event loop); `sequence` and `timestamp` advance.
    func send(_ frame: MediaFrame, payloadType: UInt8, sequence: inout UInt16, timestamp: inout UInt32, at instant: ContinuousClock.Instant) {
        let sendTime = microseconds(instant)
        for (index, payload) in frame.payloads.enumerated() {
            let packet = RTPPacket(
                marker: frame.marksLastPacket && index == frame.payloads.count - 1, payloadType: frame.payloadType ?? payloadType,
                sequenceNumber: sequence, timestamp: timestamp &- frame.timestampLag, ssrc: configuration.ssrc,
                headerExtension: MediaExtension.clientExtension(sendMicroseconds: sendTime), payload: payload[...])
            sequence &+= 1
            guard let plain = try? packet.encoded(), let bytes = protect(plain, rtcp: false), transmit(bytes) else { continue }
            state.withLock { $0.meter.recordSent(bytes: bytes.count, audioLevel: frame.audioLevel) }
        }
        timestamp &+= frame.timestampIncrement
    }

    /// Stops sending: what is in flight may still arrive.
    public func stopSending() {
        state.withLock { $0.sending = false }
    }

    /// Whether the session still sends.
    public var isSending: Bool { state.withLock { $0.sending } }

    /// Sends an RTCP sender report (with a report block on the received stream once there is
    /// one) and SDES; `at` stamps it.
    public func sendReport(at instant: ContinuousClock.Instant) {
        let meter = self.meter
        var blocks: [RTCPReportBlock] = []
        let downlink = meter.downlink
        if downlink.expected > 0 {
            blocks.append(RTCPReportBlock(
                ssrc: 0, cumulativeLost: Int32(clamping: downlink.lost),
                extendedHighestSequenceNumber: downlink.extendedHighestSequenceNumber,
                interarrivalJitter: UInt32(clamping: Int(downlink.jitterMilliseconds * Double(codec.format.clockRate) / 1000))))
        }
        let report = RTCPSenderReport(
            ssrc: configuration.ssrc, ntpTimestamp: ntp(instant), rtpTimestamp: 0,
            packetCount: UInt32(truncatingIfNeeded: meter.packetsSent), octetCount: UInt32(truncatingIfNeeded: meter.bytesSent),
            reportBlocks: blocks)
        let compound = RTCPCompoundPacket([
            .senderReport(report), .sourceDescription(.cname(configuration.cname, ssrc: configuration.ssrc)),
        ])
        if let plain = try? compound.encoded(), let bytes = protect(plain, rtcp: true) { _ = transmit(bytes) }
    }

    /// Closes the interval since the last sample and returns its figures, stamped `at`.
    public func takeSample(at instant: ContinuousClock.Instant, codec: String) -> StatsSample {
        state.withLock { $0.meter.takeSample(timestamp: wallMilliseconds(instant), codec: codec) }
    }

    // MARK: Clock

    /// Wall-clock milliseconds of an instant.
    public func wallMilliseconds(_ instant: ContinuousClock.Instant) -> Double {
        wallClockOrigin + (instant - origin).inSeconds * 1000
    }

    func microseconds(_ instant: ContinuousClock.Instant) -> UInt64 {
        UInt64(max(0, (instant - origin).inSeconds * 1e6))
    }

    func ntp(_ instant: ContinuousClock.Instant) -> NTPTimestamp {
        NTPTimestamp(unixTime: wallMilliseconds(instant) / 1000)
    }
}
