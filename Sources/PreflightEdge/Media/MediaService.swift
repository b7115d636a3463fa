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
    public func addSession(
        _ credentials: ICELiteCredentials, application: TestApplication = .echo, recordingFrames: Int? = nil,
        format: AudioPayloadFormat = .pcmu
    ) {
        let key = STUNIntegrityKey(Array(credentials.localPassword.utf8))
        var random = SystemRandomNumberGenerator()
        var session = Session(
            credentials: credentials, key: key, application: application, format: format, ssrc: random.next(),
            sequence: random.next())
        session.recordingFrameLimit = max(0, min(recordingFrames ?? configuration.maximumRecordingFrames, configuration.maximumRecordingFrames))
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
            session.srtpIn = try SRTPContext(keyingMaterial: srtp.receive)
            session.srtpOut = try SRTPContext(keyingMaterial: srtp.send)
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
                state.sessions[first] != nil, state.sessions[second] != nil
            else { return }
            state.sessions[first]?.partner = (second, random.next())
            state.sessions[second]?.partner = (first, random.next())
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

    /// Handles one datagram from `source` and returns the datagram to send back to it, if any
    /// (what a bridge forwards to another address is left out: see ``route(_:from:at:)``).
    /// - Parameter time: seconds on a monotonic clock, for the rate limit and timestamps; the
    ///   service's own clock by default (tests pass their own).
    public func handle(_ datagram: ByteBuffer, from source: SocketAddress, at time: Double? = nil) -> ByteBuffer? {
        guard let (reply, destination) = route(datagram, from: source, at: time), destination == source else { return nil }
        return reply
    }

    /// Handles one datagram from `source` and returns the datagram to send and where: back to
    /// the source (a STUN answer, an echo, an RTCP report), or, for a bridged call's RTP, to the
    /// other leg's verified address.
    /// - Parameter time: seconds on a monotonic clock, for the rate limit and timestamps; the
    ///   service's own clock by default (tests pass their own).
    public func route(_ datagram: ByteBuffer, from source: SocketAddress, at time: Double? = nil) -> (ByteBuffer, SocketAddress)? {
        var arena = ByteBuffer()
        guard let (length, destination) = route(datagram, from: source, at: time, appendingTo: &arena),
            let reply = arena.readSlice(length: length)
        else { return nil }
        return (reply, destination)
    }

    /// Handles one datagram from `source` and appends the datagram to send, if any, to `arena`:
    /// the media channel writes a whole read burst's replies from one buffer, so that an echo
    /// costs no allocation of its own.
    /// - Returns: the reply's length (its bytes end at `arena`'s writer index) and where it goes.
    public func route(
        _ datagram: ByteBuffer, from source: SocketAddress, at time: Double? = nil, appendingTo arena: inout ByteBuffer
    ) -> (length: Int, destination: SocketAddress)? {
        var datagram = datagram
        let now = time ?? self.now
        let size = datagram.readableBytes
        let kind = datagram.withUnsafeReadableBytes { PacketKind.classify($0) }
        // One lock per datagram for the rate limit, the source's budget and, for media, the
        // session's work.
        let outcome = state.withLock { state -> MediaOutcome in
            // Each table is searched once, and what is found is changed in place through its index:
            // a session copied out and back would copy its buffers, and an optional-chained
            // change through a dictionary's subscript allocates its accessor's frame.
            let verifiedIndex = state.verified.index(forKey: source)
            let sessionIndex = verifiedIndex.flatMap { state.sessions.index(forKey: state.verified.values[$0].ufrag) }
            // Read in place: the values' subscript getter would copy the whole session.
            let route = sessionIndex.map { Self.routing(of: &state.sessions.values[$0]) }
            // A probing client's datagrams pass its probe's byte rate instead of the packet limit.
            if let sessionIndex, route?.probing == true {
                guard state.sessions.values[sessionIndex].probe?.admit(bytes: size, at: now) == true else {
                    state.counters.droppedOverProbeRate += 1
                    return .drop
                }
            } else if let verifiedIndex {
                guard state.verified.values[verifiedIndex].rate.allow(at: now) else {
                    state.counters.droppedRateLimited += 1
                    return .drop
                }
            } else if !state.limiter.allow(source, at: now) {
                state.counters.droppedRateLimited += 1
                return .drop
            }
            if let verifiedIndex { state.verified.values[verifiedIndex].budget.receive(bytes: size) }
            switch kind {
            case .stun:
                return .stun
            case .rtp, .rtcp:
                guard let verifiedIndex, let index = sessionIndex else {
                    state.counters.droppedUnverified += 1
                    return .drop
                }
                if route?.encrypted == true, var context = state.sessions.values[index].srtpIn {
                    // An encrypted leg: only what authenticates, once, goes on (decrypted).
                    let protected = Array(datagram.readableBytesView)
                    do {
                        let plain = kind == .rtp ? try context.unprotectRTP(protected) : try context.unprotectRTCP(protected)
                        datagram = ByteBuffer(bytes: plain)
                    } catch {
                        state.counters.droppedUndecryptable += 1
                        return .drop
                    }
                    state.sessions.values[index].srtpIn = context
                }
                if kind == .rtp, route?.checking == true {
                    let ufrag = state.verified.values[verifiedIndex].ufrag
                    return datagram.withUnsafeReadableBytes { bytes in
                        relayCheck(bytes, from: ufrag, source: source, state: &state, at: now)
                    }
                }
                if kind == .rtp, route?.bridged == true {
                    let ufrag = state.verified.values[verifiedIndex].ufrag
                    return datagram.withUnsafeReadableBytes { bytes in
                        forward(bytes, from: ufrag, state: &state, at: now)
                    }
                }
                return datagram.withUnsafeReadableBytes { bytes in
                    answer(
                        bytes, kind: kind, budget: &state.verified.values[verifiedIndex].budget, session: &state.sessions.values[index],
                        counters: &state.counters, recordingBytes: &state.recordingBytes, at: now, injected: time)
                }
            default:
                state.counters.droppedMalformed += 1
                return .drop
            }
        }
        let start = arena.writerIndex
        switch outcome {
        case .drop:
            return nil
        case .reply(let bytes):
            arena.writeBytes(bytes)
            return (bytes.count, source)
        case .echo(let packet, let payload):
            let written = datagram.withUnsafeReadableBytes { bytes in
                let payload = UnsafeRawBufferPointer(rebasing: bytes[payload])
                return arena.writeWithUnsafeMutableBytes(minimumWritableBytes: EchoPacket.size(payloadCount: payload.count)) {
                    packet.write(payload: payload, to: $0) ?? 0
                }
            }
            return written > 0 ? (written, source) : nil
        case .forward(let bytes, let destination):
            arena.writeBytes(bytes)
            return (bytes.count, destination)
        case .stun:
            guard var reply = handleSTUN(datagram, from: source) else { return nil }
            arena.writeBuffer(&reply)
            return (arena.writerIndex - start, source)
        }
    }

    /// What decides where a session's datagram goes, read without copying the session.
    private static func routing(of session: inout Session) -> (probing: Bool, encrypted: Bool, checking: Bool, bridged: Bool) {
        (session.probesUplink, session.srtpIn != nil, session.check != nil, session.application == nil)
    }

    /// What a verified test session's RTP or RTCP gets back: an echo, an RTCP report, or nothing
    /// (a recorded frame), within the source's ``SendBudget``.
    /// - Parameters: budget, session, counters, recordingBytes: the source's budget, its session
    ///   and the parts of ``State`` they change, passed apart so that each is changed in place.
    private func answer(
        _ bytes: UnsafeRawBufferPointer, kind: PacketKind, budget: inout SendBudget, session: inout Session,
        counters: inout Counters, recordingBytes: inout Int, at now: Double, injected: Double?
    ) -> MediaOutcome {
        // What a reply that the budget refuses must not have changed: the edge's stream
        // (no gap in its sequence numbers) and, for RTCP, the closed loss interval.
        let stream = (sequence: session.sequence, packets: session.packetsSent, octets: session.octetsSent)
        let uplink = kind == .rtcp ? session.uplink : nil
        var reply =
            kind == .rtp
            ? media(bytes, session: &session, counters: &counters, recordingBytes: &recordingBytes, at: now, injected: injected)
            : control(bytes, session: &session, counters: &counters, at: now, injected: injected).map { MediaOutcome.reply($0) }
        if var context = session.srtpOut, let plain = reply?.bytes(payloadFrom: bytes) {
            guard let protected = try? (kind == .rtp ? context.protectRTP(plain) : context.protectRTCP(plain)) else {
                return .drop
            }
            reply = .reply(protected)
            session.srtpOut = context
        }
        guard let reply, let size = reply.size else {
            return .drop
        }
        guard budget.spend(bytes: size) else {
            // Not sent: the session's stream must not count the packet (no gap in its
            // sequence numbers), but what it received still counts.
            (session.sequence, session.packetsSent, session.octetsSent) = stream
            if let uplink { session.uplink = uplink }
            counters.droppedOverBudget += 1
            return .drop
        }
        if kind == .rtp { counters.packetsEchoed += 1 } else { counters.rtcpAnswered += 1 }
        return reply
    }

    enum MediaOutcome {
        case drop
        case reply([UInt8])
        /// An echo to write with its payload, the range of the received datagram it comes from.
        case echo(EchoPacket, payload: Range<Int>)
        case forward([UInt8], to: SocketAddress)
        case stun

        /// The bytes of a reply to the source: written out for an echo (to be encrypted).
        func bytes(payloadFrom datagram: UnsafeRawBufferPointer) -> [UInt8]? {
            switch self {
            case .reply(let bytes): return bytes
            case .echo(let packet, let payload):
                let source = UnsafeRawBufferPointer(rebasing: datagram[payload])
                return [UInt8](unsafeUninitializedCapacity: EchoPacket.size(payloadCount: source.count)) { buffer, count in
                    count = packet.write(payload: source, to: UnsafeMutableRawBufferPointer(buffer)) ?? 0
                }
            default: return nil
            }
        }

        /// The size of a reply to the source.
        var size: Int? {
            switch self {
            case .reply(let bytes): bytes.count
            case .echo(_, let payload): EchoPacket.size(payloadCount: payload.count)
            default: nil
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
