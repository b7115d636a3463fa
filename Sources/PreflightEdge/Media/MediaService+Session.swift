import NIOCore
import PreflightCore

// The service's state behind its one lock: sessions, verified addresses, rate limits, counters.
extension MediaService {
    struct Session {
        // What every echo reads or changes comes first, the receive statistics right after, so
        // that an echo touches the session's first cache lines only (a session is over 800 bytes;
        // a thousand of them do not stay in a core's cache).
        /// The test application, or `nil` for a leg of a bridged call.
        let application: TestApplication?
        /// Whether ``probe`` is there, and whether it probes the uplink: kept apart, so that
        /// routing a datagram reads two flags instead of copying the probe out of the session.
        var isProbe = false
        var probesUplink = false
        /// Whether ``srtpIn`` or ``srtpOut`` is there, and whether ``check`` is: flags beside the
        /// others, so that routing reads no further into the session.
        private(set) var isEncrypted = false
        private(set) var isCheck = false
        var sequence: UInt16
        let ssrc: UInt32
        var clientSSRC: UInt32?
        var packetsSent = 0
        var octetsSent = 0
        var firstMediaTime: Double?
        /// The call's codec: its payload type is recorded and bridged, its clock stamps what the
        /// edge originates and scales RTCP jitter.
        let format: AudioPayloadFormat
        /// A bridge leg's other leg once linked: its local ufrag, its slot in ``State/sessions``
        /// (found again on every packet without hashing the ufrag) and what to add to this leg's
        /// RTP timestamps for that leg's stream. Among the fields a packet reads first: the bridge
        /// reads it, and the next two, for every packet.
        var partner: (ufrag: String, slot: SessionTable.Slot, timestampOffset: UInt32)?
        /// Where the session's media goes (the pair the client nominated), with its key in
        /// ``State/verified`` and the entry it had there when last found (-1: not yet), so that a
        /// bridged packet finds its destination's budget without a table search. Set by
        /// ``setPeer(_:)``.
        private(set) var peer: SocketAddress?
        private(set) var peerKey: SourceKey?
        var peerEntry = -1
        var uplink = ReceiveStatistics(minSequential: 1)

        /// An encrypted leg's contexts: the client's key (to decrypt) and the edge's (to encrypt),
        /// set by ``encrypt(receive:send:)``. No observers: a property with one is changed
        /// through a copy, and a context changed through a copy copies its tables (allocating
        /// on every packet); these are changed in place.
        private(set) var srtpIn: SRTPContext?
        private(set) var srtpOut: SRTPContext?
        /// A connectivity check's leg: the publish leg's media goes to its subscribe leg.
        var check: CheckLeg? { didSet { isCheck = check != nil } }
        let credentials: ICELiteCredentials
        let key: STUNIntegrityKey
        /// A bridge leg's RFC 4733 events: the receiver, and the digits the client sent (at most 256).
        var dtmf = DTMFReceiver()
        var digits = ""
        var recording: [[UInt8]] = []
        var recordingBytes = 0
        var recordingClosed = false
        /// The frames this session may record (record-playback's interval).
        var recordingFrameLimit = 0
        /// Told when the recording starts and when it is full (``MediaService/RecordingProgress``).
        var onRecording: (@Sendable (RecordingProgress) -> Void)?
        /// A last-mile probe's state, for a probe session.
        var probe: ProbeSession?
        /// A trunk leg's link to the other edge of its call (``MediaService/addTrunkLeg``).
        var trunk: TrunkLink?

        init(
            credentials: ICELiteCredentials, key: STUNIntegrityKey, application: TestApplication?, format: AudioPayloadFormat,
            ssrc: UInt32, sequence: UInt16
        ) {
            self.credentials = credentials
            self.key = key
            self.application = application
            self.format = format
            self.ssrc = ssrc
            self.sequence = sequence
        }

        /// Sends the session's media to `address` from now on.
        mutating func setPeer(_ address: SocketAddress?) {
            peer = address
            peerKey = address.flatMap(SourceKey.init)
            peerEntry = -1
        }

        /// Encrypts the session's media from now on: `receive` decrypts what the client sends,
        /// `send` encrypts what the edge sends it.
        mutating func encrypt(receive: SRTPContext, send: SRTPContext) {
            srtpIn = receive
            srtpOut = send
            isEncrypted = true
        }

        /// Decrypts an SRTP or SRTCP packet of the client's (RFC 7714), the context changed in
        /// place: `nil` when the session is not encrypted. - Throws: as ``SRTPContext/unprotectRTP(_:)``.
        mutating func unprotect(_ packet: [UInt8], kind: PacketKind) throws(PreflightError) -> [UInt8]? {
            try kind == .rtp ? srtpIn?.unprotectRTP(packet) : srtpIn?.unprotectRTCP(packet)
        }

        /// Encrypts a packet the edge sends the client: `nil` when the session is not encrypted.
        mutating func protect(_ packet: [UInt8], kind: PacketKind) throws(PreflightError) -> [UInt8]? {
            try kind == .rtp ? srtpOut?.protectRTP(packet) : srtpOut?.protectRTCP(packet)
        }

        /// ``unprotect(_:kind:)`` for RTP in the caller's memory (``SRTPContext/unprotectRTP(_:into:)``):
        /// the packet's length, `nil` when the session is not encrypted.
        mutating func unprotect(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(PreflightError) -> Int? {
            try srtpIn?.unprotectRTP(packet, into: output)
        }

        /// ``protect(_:kind:)`` for RTP in place (``SRTPContext/protectRTP(inPlace:length:)``):
        /// the packet's new length, `nil` when the session is not encrypted.
        mutating func protect(inPlace buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PreflightError) -> Int? {
            try srtpOut?.protectRTP(inPlace: buffer, length: length)
        }

        /// Encodes the next packet of the edge's own stream (its SSRC, its next sequence number, the
        /// codec's clock at `seconds`) and counts it for the session's sender reports.
        mutating func originate(
            _ payload: [UInt8], payloadType: UInt8, marker: Bool, at seconds: Double, timestamp: UInt32? = nil,
            headerExtension: RTPHeaderExtension
        ) -> [UInt8]? {
            let packet = RTPPacket(
                marker: marker, payloadType: payloadType, sequenceNumber: sequence,
                timestamp: timestamp ?? MediaService.rtpTimestamp(seconds, clockRate: format.clockRate), ssrc: ssrc, headerExtension: headerExtension,
                payload: payload[...])
            guard let encoded = try? packet.encoded() else { return nil }
            sequence &+= 1
            packetsSent += 1
            octetsSent += payload.count
            return encoded
        }

        /// The next packet of the edge's own stream as an echo of `payloadCount` bytes, counted
        /// as ``originate(_:payloadType:marker:at:timestamp:headerExtension:)`` counts.
        mutating func originateEcho(
            _ report: EchoReport, payloadType: UInt8, marker: Bool, payloadCount: Int, at seconds: Double
        ) -> EchoPacket {
            let packet = EchoPacket(
                marker: marker, payloadType: payloadType, sequenceNumber: sequence,
                timestamp: MediaService.rtpTimestamp(seconds, clockRate: format.clockRate), ssrc: ssrc, report: report)
            sequence &+= 1
            packetsSent += 1
            octetsSent += payloadCount
            return packet
        }
    }

    /// An address that passed a check: the session it serves and what the edge may still send it.
    struct VerifiedPeer {
        var ufrag: String
        /// Where the session ``ufrag`` names is in ``State/sessions``: a datagram from the address
        /// reaches it by index.
        let session: SessionTable.Slot
        var budget = SendBudget()
        /// The source's rate limit, taken over from the ``SourceRateLimiter`` when the address
        /// was verified: media from it is limited without a second table search per datagram.
        var rate: TokenBucket
        /// Whether the edge may still send this address one consent request beyond its budget
        /// (``ProbeConsent``): the first one, once; every later one is paid by the address's
        /// own datagrams, as every other datagram the edge sends it.
        var mayAskBeyondBudget = true
    }

    struct State {
        var sessions = SessionTable()
        var verified = VerifiedTable()
        var limiter: SourceRateLimiter<SourceKey>
        var recordingBytes = 0
        var counters = Counters()
        var outlet: MediaOutlet?
        /// Other edges' media addresses → the SSRC of a call's media from there → its trunk leg.
        var trunkRoutes: [SourceKey: [UInt32: String]] = [:]
    }
}

extension MediaService.State {
    /// The entry of a verified address; `nil` for one that is not (or that has no ``SourceKey``).
    subscript(verified address: SocketAddress) -> MediaService.VerifiedPeer? {
        get { SourceKey(address).flatMap { verified[$0] } }
        set {
            guard let key = SourceKey(address) else { return }
            verified[key] = newValue
        }
    }
}
