import NIOCore
import PreflightCore

// The service's state behind its one lock: sessions, verified addresses, rate limits, counters.
extension MediaService {
    struct Session {
        let credentials: ICELiteCredentials
        let key: STUNIntegrityKey
        /// The test application, or `nil` for a leg of a bridged call.
        let application: TestApplication?
        /// The call's codec: its payload type is recorded and bridged, its clock stamps what the
        /// edge originates and scales RTCP jitter.
        let format: AudioPayloadFormat
        /// A bridge leg's other leg once linked: its local ufrag and what to add to this leg's
        /// RTP timestamps for that leg's stream.
        var partner: (ufrag: String, timestampOffset: UInt32)?
        /// An encrypted leg's contexts: the client's key (to decrypt) and the edge's (to encrypt).
        var srtpIn: SRTPContext?
        var srtpOut: SRTPContext?
        /// A bridge leg's RFC 4733 events: the receiver, and the digits the client sent (at most 256).
        var dtmf = DTMFReceiver()
        var digits = ""
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
        /// The frames this session may record (record-playback's interval).
        var recordingFrameLimit = 0
        var firstMediaTime: Double?
        /// A last-mile probe's state, for a probe session.
        var probe: ProbeSession?
        /// A connectivity check's leg: the publish leg's media goes to its subscribe leg.
        var check: CheckLeg?

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
}
