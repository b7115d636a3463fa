import NIOCore
import NIOPosix
import PreflightCore
import Synchronization

/// The edge's UDP media service: answers ICE-lite Binding checks (RFC 8445 §7.3 as a lite agent,
/// short-term credentials, MESSAGE-INTEGRITY and FINGERPRINT) and runs each session's test
/// application on its RTP and RTCP, but sends only to an address that passed a check for its
/// session and never more packets than that address sent (no amplification, design.md §3).
/// Everything else is dropped and counted.
///
/// - **echo**: every RTP packet comes back at once as a packet of the edge's own stream (its SSRC
///   and sequence numbers, so the client measures the downlink apart), with the payload unchanged
///   and the ``MediaExtension`` echo fields: the original sequence number, the edge's hold time,
///   the edge's send time and its cumulative view of the uplink.
/// - **record-playback**: RTP is recorded (up to ``Configuration/maximumRecordingFrames``);
///   ``playRecording(localUfrag:)`` plays it back paced at 20 ms.
/// - **RTCP** (both): a compound packet with a sender report from the client is answered at once
///   with a report block on the client's stream (LSR/DLSR, loss, jitter), so RTT and uplink
///   statistics also come from RTCP (RFC 3550 §6.4).
public final class MediaService: Sendable {
    /// Counters of what the service did, for tests, logs and metrics.
    public struct Counters: Sendable, Hashable {
        /// Binding checks answered with a success response.
        public var checksAnswered = 0
        /// Binding checks refused with an error response (unknown username, bad integrity).
        public var checksRefused = 0
        /// Plain Binding requests (no credentials) answered with the source's reflexive address.
        public var bindingsAnswered = 0
        /// RTP packets echoed.
        public var packetsEchoed = 0
        /// RTP packets recorded by record-playback sessions.
        public var packetsRecorded = 0
        /// RTP packets played back by record-playback sessions.
        public var packetsPlayedBack = 0
        /// RTCP compound packets answered with a report.
        public var rtcpAnswered = 0
        /// Media from an address that has not passed a check: dropped.
        public var droppedUnverified = 0
        /// Datagrams that are neither a valid STUN check nor RTP/RTCP: dropped.
        public var droppedMalformed = 0
        /// Datagrams over a source's packet-rate limit: dropped before any processing.
        public var droppedRateLimited = 0
    }

    /// Limits that protect the edge.
    public struct Configuration: Sendable, Hashable {
        /// Datagrams per second accepted from one source address; 200 by default (audio at 20 ms
        /// frames is 50 per second, RTCP and checks add a few).
        public var packetsPerSecondPerSource: Double
        /// Largest burst from one source, datagrams; 100 by default.
        public var burstPerSource: Double
        /// How many sources are tracked for rate limiting; when full the table is cleared (a flood of
        /// spoofed sources cannot grow it). 65 536 by default.
        public var maximumTrackedSources: Int
        /// Frames a record-playback session records: 250 by default (5 s of 20 ms frames).
        public var maximumRecordingFrames: Int
        /// The UDP socket's receive buffer, bytes: 4 MiB by default, so that the packets of
        /// hundreds of sessions arriving together are not dropped by the kernel before the event
        /// loop reads them (the kernel clamps it to `net.core.rmem_max`).
        public var receiveBufferSize: Int

        /// Creates a configuration; see each property for its default.
        public init(
            packetsPerSecondPerSource: Double = 200, burstPerSource: Double = 100, maximumTrackedSources: Int = 65_536,
            maximumRecordingFrames: Int = 250, receiveBufferSize: Int = 4 << 20
        ) {
            self.packetsPerSecondPerSource = packetsPerSecondPerSource
            self.burstPerSource = burstPerSource
            self.maximumTrackedSources = maximumTrackedSources
            self.maximumRecordingFrames = maximumRecordingFrames
            self.receiveBufferSize = receiveBufferSize
        }
    }

    /// What the edge knows of one session's media, for logs and its own reports.
    public struct SessionStatistics: Sendable, Hashable {
        /// RTP packets received from the client (distinct).
        public var received: Int
        /// RTP packets the client's sequence numbers say were sent.
        public var expected: Int
        /// Uplink interarrival jitter, ms.
        public var jitterMilliseconds: Double
        /// RTP packets the edge sent to the client.
        public var sent: Int
        /// Frames recorded (record-playback).
        public var recordedFrames: Int
        /// When the first RTP packet arrived, seconds on the service's clock; `nil` before.
        public var firstMediaTime: Double?
    }

    struct Session {
        let credentials: ICELiteCredentials
        let key: STUNIntegrityKey
        let application: TestApplication
        let ssrc: UInt32
        var sequence: UInt16
        var peer: SocketAddress?
        var uplink = ReceiveStatistics(minSequential: 1)
        var clientSSRC: UInt32?
        /// Datagrams received from the verified peer: the budget the edge may send back.
        var datagramsReceived = 0
        var datagramsSent = 0
        var packetsSent = 0
        var octetsSent = 0
        var recording: [[UInt8]] = []
        var recordingClosed = false
        var recordingPayloadType: UInt8 = MuLaw.payloadType
        var firstMediaTime: Double?

        /// Encodes the next packet of the edge's own stream (its SSRC, its next sequence number, its
        /// 8 kHz clock at `seconds`) and counts it for the session's sender reports.
        mutating func originate(
            _ payload: [UInt8], payloadType: UInt8, marker: Bool, at seconds: Double, headerExtension: RTPHeaderExtension
        ) -> [UInt8]? {
            let packet = RTPPacket(
                marker: marker, payloadType: payloadType, sequenceNumber: sequence,
                timestamp: MediaService.rtpTimestamp(seconds), ssrc: ssrc, headerExtension: headerExtension,
                payload: payload[...])
            guard let encoded = try? packet.encoded() else { return nil }
            sequence &+= 1
            packetsSent += 1
            octetsSent += payload.count
            return encoded
        }

        /// Whether one more datagram may go to the peer without sending more than was received.
        mutating func spendBudget() -> Bool {
            guard datagramsSent < datagramsReceived else { return false }
            datagramsSent += 1
            return true
        }
    }

    struct State {
        var sessions: [String: Session] = [:]
        var verified: [SocketAddress: String] = [:]
        var buckets: [SocketAddress: TokenBucket] = [:]
        var counters = Counters()
        var channel: (any Channel)?
    }

    let state = Mutex(State())
    /// The limits in force.
    public let configuration: Configuration
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    /// Creates a service with no sessions.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        start = clock.now
    }

    /// What the service has done so far.
    public var counters: Counters { state.withLock { $0.counters } }

    /// Sessions open now.
    public var sessionCount: Int { state.withLock { $0.sessions.count } }

    /// Seconds on the service's monotonic clock.
    public var now: Double { (clock.now - start).inSeconds }

    /// Accepts checks for a session from now on and runs `application` on its media.
    public func addSession(_ credentials: ICELiteCredentials, application: TestApplication = .echo) {
        let key = STUNIntegrityKey(Array(credentials.localPassword.utf8))
        var random = SystemRandomNumberGenerator()
        let session = Session(
            credentials: credentials, key: key, application: application, ssrc: random.next(),
            sequence: random.next())
        state.withLock { $0.sessions[credentials.localUfrag] = session }
    }

    /// Forgets a session and the addresses verified for it.
    public func removeSession(localUfrag: String) {
        state.withLock { state in
            state.sessions[localUfrag] = nil
            state.verified = state.verified.filter { $0.value != localUfrag }
        }
    }

    /// Where the session's media goes: the address of the pair the client nominated.
    public func peer(localUfrag: String) -> SocketAddress? {
        state.withLock { $0.sessions[localUfrag]?.peer }
    }

    /// Whether media from `address` is accepted (it passed a check for a live session).
    public func isVerified(_ address: SocketAddress) -> Bool {
        state.withLock { $0.verified[address] != nil }
    }

    /// The media statistics of a session; `nil` for an unknown session.
    public func statistics(localUfrag: String) -> SessionStatistics? {
        state.withLock { state in
            state.sessions[localUfrag].map { session in
                SessionStatistics(
                    received: session.uplink.received, expected: session.uplink.expected,
                    jitterMilliseconds: session.uplink.jitterMilliseconds, sent: session.packetsSent,
                    recordedFrames: session.recording.count, firstMediaTime: session.firstMediaTime)
            }
        }
    }

    // MARK: Receiving

    /// Handles one datagram from `source` and returns the datagram to send back to it, if any.
    /// - Parameter time: seconds on a monotonic clock, for the rate limit and timestamps; the
    ///   service's own clock by default (tests pass their own).
    public func handle(_ datagram: ByteBuffer, from source: SocketAddress, at time: Double? = nil) -> ByteBuffer? {
        let now = time ?? self.now
        let kind = datagram.withUnsafeReadableBytes { PacketKind.classify($0) }
        // One lock per datagram for the rate limit and, for media, the session's work.
        let outcome = state.withLock { state -> MediaOutcome in
            if state.buckets[source] == nil, state.buckets.count >= configuration.maximumTrackedSources {
                state.buckets.removeAll(keepingCapacity: true)
            }
            var bucket = state.buckets[source]
                ?? TokenBucket(rate: configuration.packetsPerSecondPerSource, burst: configuration.burstPerSource)
            let allowed = bucket.allow(at: now)
            state.buckets[source] = bucket
            guard allowed else {
                state.counters.droppedRateLimited += 1
                return .drop
            }
            switch kind {
            case .stun:
                return .stun
            case .rtp, .rtcp:
                guard let ufrag = state.verified[source], var session = state.sessions[ufrag] else {
                    state.counters.droppedUnverified += 1
                    return .drop
                }
                session.datagramsReceived += 1
                let reply = datagram.withUnsafeReadableBytes { bytes in
                    kind == .rtp
                        ? media(bytes, session: &session, counters: &state.counters, at: now, injected: time)
                        : control(bytes, session: &session, counters: &state.counters, at: now, injected: time)
                }
                state.sessions[ufrag] = session
                return reply.map { .reply($0) } ?? .drop
            default:
                state.counters.droppedMalformed += 1
                return .drop
            }
        }
        switch outcome {
        case .drop: return nil
        case .reply(let bytes): return ByteBuffer(bytes: bytes)
        case .stun: return handleSTUN(datagram, from: source)
        }
    }

    private enum MediaOutcome {
        case drop
        case reply([UInt8])
        case stun
    }

    /// An RTP packet of a verified session: record the uplink, then echo or record it.
    private func media(
        _ bytes: UnsafeRawBufferPointer, session: inout Session, counters: inout Counters, at now: Double,
        injected: Double?
    ) -> [UInt8]? {
        guard let header = try? RTPHeader(parsing: bytes) else {
            counters.droppedMalformed += 1
            return nil
        }
        if session.clientSSRC != header.ssrc {
            session.clientSSRC = header.ssrc
            session.uplink = ReceiveStatistics(minSequential: 1)
        }
        let sendTime = MediaExtension.sendTime(header, in: bytes)
        // Jitter against the client's send time when it is there (network jitter only, without the
        // sender's pacing noise), else against the RTP timestamp (RFC 3550 §6.4.1 as written).
        let outcome = session.uplink.record(
            sequenceNumber: header.sequenceNumber,
            rtpTimestamp: sendTime.map { UInt32(truncatingIfNeeded: $0) } ?? header.timestamp,
            arrival: now, clockRate: sendTime == nil ? MuLaw.clockRate : MediaExtension.sendTimeClockRate)
        if session.firstMediaTime == nil { session.firstMediaTime = now }
        let payload = Array(UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange]))
        switch session.application {
        case .recordPlayback:
            if outcome != .duplicate, !session.recordingClosed, session.recording.count < configuration.maximumRecordingFrames {
                session.recording.append(payload)
                session.recordingPayloadType = header.payloadType
                counters.packetsRecorded += 1
            }
            return nil
        case .echo:
            guard session.spendBudget() else { return nil }
            let sent = injected ?? self.now  // an injected time (tests) sends at that time: hold 0
            let echo = EchoReport(
                originalSequence: header.sequenceNumber,
                holdMicroseconds: UInt32(clamping: Int64(max(0, (sent - now) * 1e6))),
                clientSendMicroseconds: sendTime ?? 0,
                edgeSendMicroseconds: Self.microseconds(sent),
                uplink: UplinkReport(
                    expected: UInt32(clamping: session.uplink.expected), received: UInt32(clamping: session.uplink.received),
                    jitterMicroseconds: UInt32(clamping: Int64(session.uplink.jitterMilliseconds * 1000))))
            guard let encoded = session.originate(
                payload, payloadType: header.payloadType, marker: header.marker, at: sent,
                headerExtension: MediaExtension.echoExtension(echo))
            else { return nil }
            counters.packetsEchoed += 1
            return encoded
        }
    }

    /// An RTCP compound packet of a verified session: answer a sender report with a report block.
    private func control(
        _ bytes: UnsafeRawBufferPointer, session: inout Session, counters: inout Counters, at now: Double,
        injected: Double?
    ) -> [UInt8]? {
        guard let compound = try? RTCPCompoundPacket(decoding: Array(bytes)) else {
            counters.droppedMalformed += 1
            return nil
        }
        let report = compound.packets.lazy.compactMap { packet -> RTCPSenderReport? in
            if case .senderReport(let report) = packet { return report }
            return nil
        }.first
        guard let report, session.spendBudget() else { return nil }
        var interval = session.uplink.closeInterval()
        if session.uplink.expected == 0 { interval.fractionLost = 0 }
        let sent = injected ?? self.now  // an injected time (tests) sends at that time: hold 0
        let block = RTCPReportBlock(
            ssrc: report.ssrc, fractionLost: interval.fractionLost,
            cumulativeLost: Int32(clamping: session.uplink.lost),
            extendedHighestSequenceNumber: session.uplink.extendedHighestSequenceNumber,
            // In the stream's RTP units (8 kHz for PCMU), as RFC 3550 defines the field.
            interarrivalJitter: UInt32(clamping: Int64(session.uplink.jitterMilliseconds * Double(MuLaw.clockRate) / 1000)),
            lastSenderReport: report.ntpTimestamp.middle32Bits,
            delaySinceLastSenderReport: UInt32(clamping: Int64((sent - now) * 65536)))
        let answer: RTCPPacket =
            session.packetsSent > 0
            ? .senderReport(
                RTCPSenderReport(
                    ssrc: session.ssrc, ntpTimestamp: NTPTimestamp(unixTime: 0), rtpTimestamp: Self.rtpTimestamp(sent),
                    packetCount: UInt32(truncatingIfNeeded: session.packetsSent),
                    octetCount: UInt32(truncatingIfNeeded: session.octetsSent), reportBlocks: [block]))
            : .receiverReport(RTCPReceiverReport(ssrc: session.ssrc, reportBlocks: [block]))
        let compoundAnswer = RTCPCompoundPacket([answer, .sourceDescription(.cname("preflight-edge", ssrc: session.ssrc))])
        guard let encoded = try? compoundAnswer.encoded() else { return nil }
        counters.rtcpAnswered += 1
        return encoded
    }

    static func microseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0, seconds * 1e6))
    }

    /// The edge's RTP clock (8 kHz) at `seconds`, wrapping.
    static func rtpTimestamp(_ seconds: Double) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt64(max(0, seconds * Double(MuLaw.clockRate))))
    }

    // MARK: STUN

    /// What to do with a STUN datagram.
    private enum CheckOutcome {
        /// A valid check: send this success response.
        case answer([UInt8])
        /// A check to refuse with this error code (RFC 8489 §9.1.3: 400 without USERNAME, 401 for
        /// an unknown username or bad integrity).
        case refuse(code: Int, transactionID: STUNTransactionID)
        /// Not a Binding request, or not STUN after all (bad FINGERPRINT): drop silently.
        case ignore
    }

    private func handleSTUN(_ datagram: ByteBuffer, from source: SocketAddress) -> ByteBuffer? {
        let outcome = datagram.withUnsafeReadableBytes { check($0, from: source) }
        switch outcome {
        case .answer(let response):
            return ByteBuffer(bytes: response)
        case .refuse(let code, let transactionID):
            state.withLock { $0.counters.checksRefused += 1 }
            // No MESSAGE-INTEGRITY on the error: the edge cannot trust the key the request claims.
            let refusal = STUNMessage(
                type: STUNMessageType(method: .binding, class: .errorResponse), transactionID: transactionID,
                attributes: [.errorCode(STUNErrorCode(code: code, reason: code == 400 ? "Bad Request" : "Unauthorized"))])
            return (try? refusal.encoded(fingerprint: true)).map { ByteBuffer(bytes: $0) }
        case .ignore:
            state.withLock { $0.counters.droppedMalformed += 1 }
            return nil
        }
    }

    private func check(_ buffer: UnsafeRawBufferPointer, from source: SocketAddress) -> CheckOutcome {
        guard let layout = try? STUNMessageLayout(parsing: buffer),
            layout.type == STUNMessageType(method: .binding, class: .request)
        else { return .ignore }
        if layout.fingerprintOffset != nil {
            guard (try? layout.verifyFingerprint(in: buffer)) != nil else { return .ignore }
        }
        guard let usernameRange = layout.value(of: .username, in: buffer) else {
            // A plain Binding request (no USERNAME, no MESSAGE-INTEGRITY): the edge is a STUN
            // server for the client's server-reflexive candidate (RFC 8489 §12). Its answer
            // grants nothing: the source is not verified for media.
            guard layout.value(of: .messageIntegrity, in: buffer) == nil,
                layout.value(of: .messageIntegritySHA256, in: buffer) == nil
            else { return .refuse(code: 400, transactionID: layout.transactionID) }
            return reflect(layout.transactionID, from: source)
        }
        let username = String(decoding: buffer[usernameRange], as: UTF8.self)
        let parts = username.split(separator: ":", maxSplits: 1)
        let session = state.withLock { $0.sessions[parts.first.map(String.init) ?? ""] }
        guard let session, parts.count == 2, parts[1] == session.credentials.remoteUfrag,
            (try? layout.verifyIntegrity(key: session.key, in: buffer)) != nil
        else { return .refuse(code: 401, transactionID: layout.transactionID) }
        guard let mapped = Self.transportAddress(source) else {
            return .ignore
        }
        let nominated = layout.value(of: .useCandidate, in: buffer) != nil
        let response = STUNMessage(
            type: STUNMessageType(method: .binding, class: .successResponse), transactionID: layout.transactionID,
            attributes: [.xorMappedAddress(mapped)])
        guard let encoded = try? response.encoded(integrityKey: session.key, fingerprint: true) else { return .ignore }
        state.withLock { state in
            // The session may have ended while the response was built.
            guard state.sessions[session.credentials.localUfrag] != nil else { return }
            state.verified[source] = session.credentials.localUfrag
            // As the lite agent, media goes to the pair the controlling client nominated
            // (RFC 8445 §8.2); ordinary checks and consent checks only verify their source.
            if nominated || state.sessions[session.credentials.localUfrag]?.peer == nil {
                state.sessions[session.credentials.localUfrag]?.peer = source
            }
            state.counters.checksAnswered += 1
        }
        return .answer(encoded)
    }

    /// The answer to a plain Binding request: XOR-MAPPED-ADDRESS and FINGERPRINT, no integrity.
    private func reflect(_ transactionID: STUNTransactionID, from source: SocketAddress) -> CheckOutcome {
        guard let mapped = Self.transportAddress(source) else {
            return .ignore
        }
        let response = STUNMessage(
            type: STUNMessageType(method: .binding, class: .successResponse), transactionID: transactionID,
            attributes: [.xorMappedAddress(mapped), .software("preflight-edge")])
        guard let encoded = try? response.encoded(fingerprint: true) else { return .ignore }
        state.withLock { $0.counters.bindingsAnswered += 1 }
        return .answer(encoded)
    }

    /// `source` as a STUN transport address (for XOR-MAPPED-ADDRESS).
    private static func transportAddress(_ source: SocketAddress) -> TransportAddress? {
        TransportAddress(host: source.ipAddress ?? "", port: UInt16(clamping: source.port ?? 0))
    }
}
