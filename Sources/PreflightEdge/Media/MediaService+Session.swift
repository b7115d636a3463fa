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
        var uplink = ReceiveStatistics(minSequential: 1)

        /// An encrypted leg's contexts: the client's key (to decrypt) and the edge's (to encrypt).
        var srtpIn: SRTPContext? { didSet { isEncrypted = srtpIn != nil || srtpOut != nil } }
        var srtpOut: SRTPContext? { didSet { isEncrypted = srtpIn != nil || srtpOut != nil } }
        /// A connectivity check's leg: the publish leg's media goes to its subscribe leg.
        var check: CheckLeg? { didSet { isCheck = check != nil } }
        let credentials: ICELiteCredentials
        let key: STUNIntegrityKey
        /// A bridge leg's other leg once linked: its local ufrag and what to add to this leg's
        /// RTP timestamps for that leg's stream.
        var partner: (ufrag: String, timestampOffset: UInt32)?
        /// A bridge leg's RFC 4733 events: the receiver, and the digits the client sent (at most 256).
        var dtmf = DTMFReceiver()
        var digits = ""
        var peer: SocketAddress?
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
