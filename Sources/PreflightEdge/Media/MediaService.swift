import NIOCore
import NIOPosix
import PreflightCore
import Synchronization

/// The edge's UDP media service: answers ICE-lite Binding checks (RFC 8445 §7.3 as a lite agent,
/// short-term credentials, MESSAGE-INTEGRITY and FINGERPRINT) and runs each session's test
/// application on its RTP and RTCP, but sends only to an address that passed a check for its
/// session, and never more to an address than it received from that address: no more datagrams,
/// and no more bytes than it received plus 64 per datagram (``SendBudget``), so the edge can be
/// used neither to amplify nor to redirect traffic (docs/security.md). Everything else is dropped
/// and counted.
///
/// - **echo**: every RTP packet comes back at once as a packet of the edge's own stream (its SSRC
///   and sequence numbers, so the client measures the downlink apart), with the payload unchanged
///   and the ``MediaExtension`` echo fields: the original sequence number, the edge's hold time,
///   the edge's send time and its cumulative view of the uplink.
/// - **record-playback**: RTP is recorded (up to ``Configuration/maximumRecordingFrames`` and
///   ``Configuration/maximumRecordingBytes``, within ``Configuration/maximumTotalRecordingBytes``);
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
        /// Replies not sent because the destination's ``SendBudget`` would be exceeded.
        public var droppedOverBudget = 0
        /// Frames not recorded because a recording byte budget was spent.
        public var droppedOverRecordingBudget = 0
    }

    /// Limits that protect the edge.
    public struct Configuration: Sendable, Hashable {
        /// Datagrams per second accepted from one source address; 200 by default (audio at 20 ms
        /// frames is 50 per second, RTCP and checks add a few).
        public var packetsPerSecondPerSource: Double
        /// Largest burst from one source, datagrams; 100 by default.
        public var burstPerSource: Double
        /// How many sources are tracked for rate limiting; when full, sources idle long enough for
        /// their bucket to refill are evicted, and new sources beyond it share one bucket
        /// (``SourceRateLimiter``). 65 536 by default.
        public var maximumTrackedSources: Int
        /// Frames a record-playback session records: 250 by default (5 s of 20 ms frames).
        public var maximumRecordingFrames: Int
        /// Payload bytes a record-playback session records: 256 KiB by default (250 frames of up
        /// to 1 KiB; a 20 ms PCMU frame is 160 bytes).
        public var maximumRecordingBytes: Int
        /// Payload bytes all sessions' recordings hold together: 64 MiB by default (256 full
        /// recordings); a recording that would pass it stops early.
        public var maximumTotalRecordingBytes: Int
        /// The UDP socket's receive buffer, bytes: 4 MiB by default, so that the packets of
        /// hundreds of sessions arriving together are not dropped by the kernel before the event
        /// loop reads them (the kernel clamps it to `net.core.rmem_max`).
        public var receiveBufferSize: Int

        /// Creates a configuration; see each property for its default.
        public init(
            packetsPerSecondPerSource: Double = 200, burstPerSource: Double = 100, maximumTrackedSources: Int = 65_536,
            maximumRecordingFrames: Int = 250, maximumRecordingBytes: Int = 256 << 10,
            maximumTotalRecordingBytes: Int = 64 << 20, receiveBufferSize: Int = 4 << 20
        ) {
            self.packetsPerSecondPerSource = packetsPerSecondPerSource
            self.burstPerSource = burstPerSource
            self.maximumTrackedSources = maximumTrackedSources
            self.maximumRecordingFrames = maximumRecordingFrames
            self.maximumRecordingBytes = maximumRecordingBytes
            self.maximumTotalRecordingBytes = maximumTotalRecordingBytes
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
        var packetsSent = 0
        var octetsSent = 0
        var recording: [[UInt8]] = []
        var recordingBytes = 0
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
    }

    /// An address that passed a check: the session it serves and what the edge may still send it.
    struct VerifiedPeer {
        var ufrag: String
        var budget = SendBudget()
    }

    struct State {
        var sessions: [String: Session] = [:]
        var verified: [SocketAddress: VerifiedPeer] = [:]
        var limiter: SourceRateLimiter<SocketAddress>
        var recordingBytes = 0
        var counters = Counters()
        var channel: (any Channel)?
    }

    let state: Mutex<State>
    /// The limits in force.
    public let configuration: Configuration
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    /// Creates a service with no sessions.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        state = Mutex(State(limiter: SourceRateLimiter(
            rate: configuration.packetsPerSecondPerSource, burst: configuration.burstPerSource,
            capacity: configuration.maximumTrackedSources)))
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
            if let session = state.sessions.removeValue(forKey: localUfrag) {
                state.recordingBytes -= session.recordingBytes
            }
            state.verified = state.verified.filter { $0.value.ufrag != localUfrag }
        }
    }

    /// Where the session's media goes: the address of the pair the client nominated.
    public func peer(localUfrag: String) -> SocketAddress? {
        state.withLock { $0.sessions[localUfrag]?.peer }
    }

    /// What the edge may still send to `address`; `nil` when it is not verified.
    public func budget(for address: SocketAddress) -> SendBudget? {
        state.withLock { $0.verified[address]?.budget }
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
        let size = datagram.readableBytes
        let kind = datagram.withUnsafeReadableBytes { PacketKind.classify($0) }
        // One lock per datagram for the rate limit, the source's budget and, for media, the
        // session's work.
        let outcome = state.withLock { state -> MediaOutcome in
            guard state.limiter.allow(source, at: now) else {
                state.counters.droppedRateLimited += 1
                return .drop
            }
            state.verified[source]?.budget.receive(bytes: size)
            switch kind {
            case .stun:
                return .stun
            case .rtp, .rtcp:
                guard var peer = state.verified[source], var session = state.sessions[peer.ufrag] else {
                    state.counters.droppedUnverified += 1
                    return .drop
                }
                // What a reply that the budget refuses must not have changed: the edge's stream
                // (no gap in its sequence numbers) and, for RTCP, the closed loss interval.
                let stream = (sequence: session.sequence, packets: session.packetsSent, octets: session.octetsSent)
                let uplink = kind == .rtcp ? session.uplink : nil
                let reply = datagram.withUnsafeReadableBytes { bytes in
                    kind == .rtp
                        ? media(bytes, session: &session, state: &state, at: now, injected: time)
                        : control(bytes, session: &session, counters: &state.counters, at: now, injected: time)
                }
                guard let reply else {
                    state.sessions[peer.ufrag] = session
                    return .drop
                }
                guard peer.budget.spend(bytes: reply.count) else {
                    // Not sent: the session's stream must not count the packet (no gap in its
                    // sequence numbers), but what it received still counts.
                    (session.sequence, session.packetsSent, session.octetsSent) = stream
                    if let uplink { session.uplink = uplink }
                    state.sessions[peer.ufrag] = session
                    state.counters.droppedOverBudget += 1
                    return .drop
                }
                state.sessions[peer.ufrag] = session
                state.verified[source] = peer
                if kind == .rtp { state.counters.packetsEchoed += 1 } else { state.counters.rtcpAnswered += 1 }
                return .reply(reply)
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

    static func microseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0, seconds * 1e6))
    }

    /// The edge's RTP clock (8 kHz) at `seconds`, wrapping.
    static func rtpTimestamp(_ seconds: Double) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt64(max(0, seconds * Double(MuLaw.clockRate))))
    }

}
