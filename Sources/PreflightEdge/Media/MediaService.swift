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
    let state: Mutex<State>
    /// The limits in force.
    public let configuration: Configuration
    /// Datagrams read from and written to the socket, counted outside the state's lock.
    let datagramsReceived = Atomic<Int>(0)
    let datagramsSent = Atomic<Int>(0)
    private let start = ContinuousSeconds()

    /// Creates a service with no sessions.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        state = Mutex(State(limiter: SourceRateLimiter(
            rate: configuration.packetsPerSecondPerSource, burst: configuration.burstPerSource,
            capacity: configuration.maximumTrackedSources)))
        // SRTP's cipher library loads here, not on the first encrypted call's set-up path.
        SRTPContext.loadSystemCrypto()
    }

    /// What the service has done so far.
    public var counters: Counters {
        var counters = state.withLock { $0.counters }
        counters.datagramsReceived = datagramsReceived.load(ordering: .relaxed)
        counters.datagramsSent = datagramsSent.load(ordering: .relaxed)
        return counters
    }

    /// Sessions open now.
    public var sessionCount: Int { state.withLock { $0.sessions.count } }

    /// Seconds on the service's monotonic clock.
    public var now: Double { start.elapsed }

    /// Accepts checks for a session from now on and runs `application` on its media.
    /// - Parameter recordingFrames: the frames a record-playback session records (its interval
    ///   in 20 ms frames), at most ``Configuration/maximumRecordingFrames``, which is also the
    ///   default.
    /// - Parameter format: the call's codec (its payload type is the one recorded, its clock
    ///   stamps what the edge sends); PCMU by default.
    /// - Parameter onRecording: for a record-playback session, told (outside the service's lock)
    ///   when its first packet came and when its recording is full: the session's owner waits
    ///   for these instead of asking.
    public func addSession(
        _ credentials: ICELiteCredentials, application: TestApplication = .echo, recordingFrames: Int? = nil,
        format: AudioPayloadFormat = .pcmu, onRecording: (@Sendable (RecordingProgress) -> Void)? = nil
    ) {
        let key = STUNIntegrityKey(Array(credentials.localPassword.utf8))
        var random = SystemRandomNumberGenerator()
        var session = Session(
            credentials: credentials, key: key, application: application, format: format, ssrc: random.next(),
            sequence: random.next())
        session.recordingFrameLimit = max(0, min(recordingFrames ?? configuration.maximumRecordingFrames, configuration.maximumRecordingFrames))
        session.onRecording = application == .recordPlayback ? onRecording : nil
        state.withLock { $0.sessions[credentials.localUfrag] = session }
    }

    /// Accepts checks for one leg of a bridged call: its RTP goes to the other leg once
    /// ``link(_:_:)`` joined them (dropped before), its RTCP is answered as a test session's.
    /// - Parameter srtp: the leg's keys when its media is encrypted (SRTP, RFC 7714): what the
    ///   client sends is decrypted with `receive` (and refused unless it authenticates), what the
    ///   edge sends it is encrypted with `send`; `nil` for plain RTP.
    /// - Throws: 70002 for keying material that cannot make a context.
    /// - Parameter format: the call's codec, the same on both legs: only its payload type and
    ///   RFC 4733 events are forwarded. PCMU by default.
    public func addBridgeLeg(
        _ credentials: ICELiteCredentials, srtp: (receive: SRTPKeyingMaterial, send: SRTPKeyingMaterial)? = nil,
        format: AudioPayloadFormat = .pcmu
    ) throws(PreflightError) {
        let key = STUNIntegrityKey(Array(credentials.localPassword.utf8))
        var random = SystemRandomNumberGenerator()
        var session = Session(
            credentials: credentials, key: key, application: nil, format: format, ssrc: random.next(), sequence: random.next())
        if let srtp {
            session.encrypt(receive: try SRTPContext(keyingMaterial: srtp.receive), send: try SRTPContext(keyingMaterial: srtp.send))
        }
        state.withLock { $0.sessions[credentials.localUfrag] = session }
    }

    /// Joins two bridge legs: each one's RTP is forwarded to the other from now on, as a packet
    /// of the receiving leg's own stream (its SSRC, gap-free sequence numbers, timestamps moved
    /// by a fixed offset), within the receiving address's own ``SendBudget``.
    public func link(_ first: String, _ second: String) {
        var random = SystemRandomNumberGenerator()
        state.withLock { state in
            guard state.sessions[first]?.application == nil, state.sessions[second]?.application == nil,
                let firstSlot = state.sessions.slot(of: first), let secondSlot = state.sessions.slot(of: second)
            else { return }
            state.sessions[first]?.partner = (second, secondSlot, random.next())
            state.sessions[second]?.partner = (first, firstSlot, random.next())
        }
    }

    /// Separates a bridge leg from whatever leg it was joined to.
    public func unlinkAll(localUfrag: String) {
        state.withLock { state in
            guard let partner = state.sessions[localUfrag]?.partner?.ufrag else { return }
            state.sessions[localUfrag]?.partner = nil
            if state.sessions[partner]?.partner?.ufrag == localUfrag { state.sessions[partner]?.partner = nil }
        }
    }

    /// Separates two bridge legs: nothing is forwarded between them any more.
    public func unlink(_ first: String, _ second: String) {
        state.withLock { state in
            if state.sessions[first]?.partner?.ufrag == second { state.sessions[first]?.partner = nil }
            if state.sessions[second]?.partner?.ufrag == first { state.sessions[second]?.partner = nil }
        }
    }

    /// The DTMF digits a bridge leg's client sent so far (at most 256).
    public func digits(localUfrag: String) -> String {
        state.withLock { $0.sessions[localUfrag]?.digits ?? "" }
    }

    /// Forgets a session and the addresses verified for it.
    public func removeSession(localUfrag: String) {
        state.withLock { state in
            if let session = state.sessions.removeValue(forKey: localUfrag) {
                state.recordingBytes -= session.recordingBytes
                if let trunk = session.trunk {
                    state.trunkRoutes[trunk.peerKey]?.removeValue(forKey: trunk.receiveSSRC)
                    if state.trunkRoutes[trunk.peerKey]?.isEmpty == true { state.trunkRoutes.removeValue(forKey: trunk.peerKey) }
                }
            }
            state.verified.removeAll { $0.ufrag == localUfrag }
        }
    }

    /// Where the session's media goes: the address of the pair the client nominated.
    public func peer(localUfrag: String) -> SocketAddress? {
        state.withLock { $0.sessions[localUfrag]?.peer }
    }

    /// What the edge may still send to `address`; `nil` when it is not verified.
    public func budget(for address: SocketAddress) -> SendBudget? {
        state.withLock { $0[verified: address]?.budget }
    }

    /// Whether media from `address` is accepted (it passed a check for a live session).
    public func isVerified(_ address: SocketAddress) -> Bool {
        state.withLock { $0[verified: address] != nil }
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

    static func microseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0, seconds * 1e6))
    }

    /// The edge's RTP clock (8 kHz) at `seconds`, wrapping.
    /// The RTP timestamp at `seconds` on the service's clock, at `clockRate` Hz.
    static func rtpTimestamp(_ seconds: Double, clockRate: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt64(max(0, min(seconds, 1e9) * Double(clockRate))))
    }

}
