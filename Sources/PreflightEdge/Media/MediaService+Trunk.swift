import NIOCore
import PreflightCore
import Synchronization

/// The inter-edge trunk: a call whose parties are on two edges is two bridge legs here, the
/// local party's and a trunk leg whose peer is the other edge's media address. The trunk leg's
/// media is SRTP with the call's own keys (made by the caller's edge, carried in the invite)
/// and the call's own SSRCs, so that one address carries many calls and each datagram finds its
/// call by SSRC and proves it with its key.
///
/// What the edge sends the peer edge for a call is what was sent to it for that call: one
/// datagram per datagram of the local party's media (a verified client, within its own send
/// budget), re-protected under the call's key, and only while the peer consents:
/// - Until the peer's first authenticated packet of the call has come, the trunk leg sends only
///   hellos (an application-defined SRTCP packet), each in place of a packet of the local
///   party's media, at most one every 100 ms and ``TrunkLink/maximumUnansweredHellos`` in all.
/// - Then it forwards while the peer's authenticated packets of the call keep coming: consent
///   lapses ``TrunkLink/consentTimeout`` after the last one (RFC 7675's 30 s), and the leg
///   sends nothing more.
///
/// Not a byte-for-byte budget against what the peer sent back: the two directions of a call
/// would then pay for each other, the credits in flight bounded by the hellos and worn down by
/// every packet lost, and a trunk 40 ms long would carry one packet in four (measured,
/// docs/lab.md).
extension MediaService {
    /// A trunk leg's link to its peer edge.
    struct TrunkLink {
        let peer: SocketAddress
        let peerKey: SourceKey
        /// The SSRC of what the peer edge sends for this call.
        let receiveSSRC: UInt32
        /// The peer's first authenticated packet of this call came.
        var isVerified = false
        /// When the peer's last authenticated packet of this call came, seconds.
        var lastAuthenticated: Double = 0
        var hellosSent = 0
        var lastHello: Double = -1

        /// Hellos sent before the peer answered, at most.
        static let maximumUnansweredHellos = 50
        /// Hellos at most this often, seconds.
        static let helloInterval = 0.1
        /// How long the peer's consent lasts after its last authenticated packet, seconds.
        static let consentTimeout = 30.0

        /// Whether the leg may send the peer media at `now`: it answered, and recently.
        func consents(at now: Double) -> Bool {
            isVerified && now - lastAuthenticated <= Self.consentTimeout
        }
    }

    /// Opens the trunk leg `ufrag` of a call to `peer` (the other edge's media address): its
    /// media is protected with `srtp.send` under `sendSSRC`, the peer's with `srtp.receive`
    /// under `receiveSSRC`. ``link(_:_:)`` joins it to the local party's leg.
    /// - Throws: 70002 for keying material that cannot make a context or an SSRC another trunk
    ///   leg from `peer` already uses.
    public func addTrunkLeg(
        _ ufrag: String, peer: SocketAddress, srtp: (receive: SRTPKeyingMaterial, send: SRTPKeyingMaterial), sendSSRC: UInt32,
        receiveSSRC: UInt32, format: AudioPayloadFormat
    ) throws(PreflightError) {
        guard let peerKey = SourceKey(peer) else {
            throw PreflightError(code: .malformed, message: "trunk: the peer's address is not an IP address")
        }
        let credentials = ICELiteCredentials(localUfrag: ufrag, localPassword: "", remoteUfrag: "")
        var random = SystemRandomNumberGenerator()
        var session = Session(
            credentials: credentials, key: STUNIntegrityKey([]), application: nil, format: format, ssrc: sendSSRC, sequence: random.next())
        session.encrypt(receive: try SRTPContext(keyingMaterial: srtp.receive), send: try SRTPContext(keyingMaterial: srtp.send))
        session.trunk = TrunkLink(peer: peer, peerKey: peerKey, receiveSSRC: receiveSSRC)
        session.setPeer(peer)
        try state.withLock { state throws(PreflightError) in
            guard state.trunkRoutes[peerKey]?[receiveSSRC] == nil else {
                throw PreflightError(code: .malformed, message: "trunk: SSRC \(receiveSSRC) of that edge is another call's")
            }
            state.sessions[ufrag] = session
            state.trunkRoutes[peerKey, default: [:]][receiveSSRC] = ufrag
        }
    }

    /// Trunk legs open now (calls whose other party is on another edge).
    public var trunkLegCount: Int { state.withLock { $0.trunkRoutes.values.reduce(0) { $0 + $1.count } } }

    /// A datagram from an address that is a trunk peer: the call's leg is found by SSRC and the
    /// datagram authenticated with its key; RTP goes on to the local party, RTCP (the peer's
    /// hellos and reports) is taken. `nil` when no trunk leg of that peer has the SSRC.
    func trunkInbound(
        _ datagram: ByteBuffer, kind: PacketKind, routes: [UInt32: String], state: inout State, at now: Double
    ) -> MediaOutcome? {
        let ssrcOffset = kind == .rtp ? 8 : 4
        guard kind == .rtp || kind == .rtcp, let ssrc = datagram.getInteger(at: datagram.readerIndex + ssrcOffset, as: UInt32.self),
            let ufrag = routes[ssrc]
        else { return nil }
        guard var session = state.sessions[ufrag], var trunk = session.trunk, session.srtpIn != nil else { return nil }
        let plain: [UInt8]
        do {
            guard let opened = try session.unprotect(Array(datagram.readableBytesView), kind: kind) else { return nil }
            plain = opened
        } catch {
            state.counters.droppedUndecryptable += 1
            return .drop
        }
        trunk.isVerified = true
        trunk.lastAuthenticated = now
        session.trunk = trunk
        state.sessions[ufrag] = session
        guard kind == .rtp else {
            state.counters.trunkControlReceived += 1
            return .drop
        }
        state.counters.trunkPacketsReceived += 1
        return plain.withUnsafeBytes { forward($0, from: ufrag, state: &state, at: now) }
    }

    /// A hello on the trunk leg `other`, in place of a packet of the local party's media, while
    /// the peer has not answered: at most one every ``TrunkLink/helloInterval``, and
    /// ``TrunkLink/maximumUnansweredHellos`` in all; otherwise nothing.
    /// The hello is as long as the packet it stands for (`size` bytes before protection), so
    /// that the path carries what the call will; the first one that reaches the peer starts
    /// the peer's media to this edge.
    func trunkHello(leg other: inout Session, size: Int, state: inout State, at now: Double) -> MediaOutcome {
        guard var trunk = other.trunk, trunk.hellosSent < TrunkLink.maximumUnansweredHellos,
            now - trunk.lastHello >= TrunkLink.helloInterval, other.srtpOut != nil
        else {
            state.counters.droppedUnbridged += 1
            return .drop
        }
        // An application-defined packet of the leg's own stream, named PFTH, its data zeros
        // (RFC 3550 §6.7), protected.
        let words = max(3, min(size, 1200) / 4)
        let ssrc = other.ssrc
        var report: [UInt8] = [
            0x80, 204, UInt8(truncatingIfNeeded: (words - 1) >> 8), UInt8(truncatingIfNeeded: words - 1),
            UInt8(truncatingIfNeeded: ssrc >> 24), UInt8(truncatingIfNeeded: ssrc >> 16), UInt8(truncatingIfNeeded: ssrc >> 8),
            UInt8(truncatingIfNeeded: ssrc), 0x50, 0x46, 0x54, 0x48,
        ]
        report += [UInt8](repeating: 0, count: words * 4 - report.count)
        guard let hello = try? other.protect(report, kind: .rtcp) else { return .drop }
        trunk.hellosSent += 1
        trunk.lastHello = now
        other.trunk = trunk
        state.counters.trunkHellosSent += 1
        return .forward(hello, to: trunk.peer)
    }
}
