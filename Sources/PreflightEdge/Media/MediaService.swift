import NIOCore
import PreflightCore
import Synchronization

/// The edge's UDP media service: answers ICE-lite Binding checks (RFC 8445 §7.3 as a lite agent,
/// short-term credentials, MESSAGE-INTEGRITY and FINGERPRINT) and echoes RTP/RTCP, but only to an
/// address that passed a check for its session: the edge never sends media to an address that has
/// not proved it holds the session's password (no amplification, design.md §3). Everything else is
/// dropped and counted.
public final class MediaService: Sendable {
    /// Counters of what the service did, for tests, logs and metrics.
    public struct Counters: Sendable, Hashable {
        /// Binding checks answered with a success response.
        public var checksAnswered = 0
        /// Binding checks refused with an error response (unknown username, bad integrity).
        public var checksRefused = 0
        /// RTP and RTCP packets echoed.
        public var packetsEchoed = 0
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

        /// Creates a configuration; see each property for its default.
        public init(packetsPerSecondPerSource: Double = 200, burstPerSource: Double = 100, maximumTrackedSources: Int = 65_536) {
            self.packetsPerSecondPerSource = packetsPerSecondPerSource
            self.burstPerSource = burstPerSource
            self.maximumTrackedSources = maximumTrackedSources
        }
    }

    private struct Session {
        let credentials: ICELiteCredentials
        let key: STUNIntegrityKey
    }

    private struct State {
        var sessions: [String: Session] = [:]
        var verified: [SocketAddress: String] = [:]
        var buckets: [SocketAddress: TokenBucket] = [:]
        var counters = Counters()
    }

    private let state = Mutex(State())
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

    /// Accepts checks for a session from now on.
    public func addSession(_ credentials: ICELiteCredentials) {
        let key = STUNIntegrityKey(Array(credentials.localPassword.utf8))
        state.withLock { $0.sessions[credentials.localUfrag] = Session(credentials: credentials, key: key) }
    }

    /// Forgets a session and the addresses verified for it.
    public func removeSession(localUfrag: String) {
        state.withLock { state in
            state.sessions[localUfrag] = nil
            state.verified = state.verified.filter { $0.value != localUfrag }
        }
    }

    /// Whether media from `address` is accepted (it passed a check for a live session).
    public func isVerified(_ address: SocketAddress) -> Bool {
        state.withLock { $0.verified[address] != nil }
    }

    /// Handles one datagram from `source` and returns the datagram to send back to it, if any.
    /// - Parameter time: seconds on a monotonic clock, for the rate limit; the service's own clock
    ///   by default (tests pass their own).
    public func handle(_ datagram: ByteBuffer, from source: SocketAddress, at time: Double? = nil) -> ByteBuffer? {
        let now = time ?? (clock.now - start).inSeconds
        let kind = datagram.withUnsafeReadableBytes { PacketKind.classify($0) }
        // One lock per datagram for the rate limit and, for media, the verified-address check.
        let proceed = state.withLock { state -> Bool in
            if state.buckets[source] == nil, state.buckets.count >= configuration.maximumTrackedSources {
                state.buckets.removeAll(keepingCapacity: true)
            }
            var bucket = state.buckets[source]
                ?? TokenBucket(rate: configuration.packetsPerSecondPerSource, burst: configuration.burstPerSource)
            let allowed = bucket.allow(at: now)
            state.buckets[source] = bucket
            guard allowed else {
                state.counters.droppedRateLimited += 1
                return false
            }
            switch kind {
            case .stun:
                return true
            case .rtp, .rtcp:
                guard state.verified[source] != nil else {
                    state.counters.droppedUnverified += 1
                    return false
                }
                state.counters.packetsEchoed += 1
                return true
            default:
                state.counters.droppedMalformed += 1
                return false
            }
        }
        guard proceed else { return nil }
        return kind == .stun ? handleSTUN(datagram, from: source) : datagram
    }

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
            return .refuse(code: 400, transactionID: layout.transactionID)
        }
        let username = String(decoding: buffer[usernameRange], as: UTF8.self)
        let parts = username.split(separator: ":", maxSplits: 1)
        let session = state.withLock { $0.sessions[parts.first.map(String.init) ?? ""] }
        guard let session, parts.count == 2, parts[1] == session.credentials.remoteUfrag,
            (try? layout.verifyIntegrity(key: session.key, in: buffer)) != nil
        else { return .refuse(code: 401, transactionID: layout.transactionID) }
        guard let mapped = TransportAddress(host: source.ipAddress ?? "", port: UInt16(clamping: source.port ?? 0)) else {
            return .ignore
        }
        let response = STUNMessage(
            type: STUNMessageType(method: .binding, class: .successResponse), transactionID: layout.transactionID,
            attributes: [.xorMappedAddress(mapped)])
        guard let encoded = try? response.encoded(integrityKey: session.key, fingerprint: true) else { return .ignore }
        state.withLock { state in
            state.verified[source] = session.credentials.localUfrag
            state.counters.checksAnswered += 1
        }
        return .answer(encoded)
    }

    /// Serves datagrams from `channel` until it closes or the task is cancelled.
    public func serve(
        _ channel: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>
    ) async throws {
        try await channel.executeThenClose { inbound, outbound in
            for try await envelope in inbound {
                if let reply = handle(envelope.data, from: envelope.remoteAddress) {
                    try await outbound.write(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: reply))
                }
            }
        }
    }
}
