import Foundation
import PreflightModel
internal import PreflightCore
internal import PreflightNIO
import Synchronization

extension Call {
    /// Whether the call's media is encrypted (SRTP, AEAD_AES_128_GCM): known once the edge
    /// answered; `false` for plain RTP (``CallOptions/encryptsMedia`` off, or a test application).
    public var isMediaEncrypted: Bool {
        handle.withLock { $0.media }?.isEncrypted ?? false
    }

    /// The call's statistics now, WebRTC-shaped: the audio sent (packets, bytes, what the edge
    /// reports lost, RTT, the edge's jitter, level) and received (packets, bytes, lost, jitter,
    /// level, MOS), and the selected candidate pair. `nil` unless the call is
    /// ``CallState/connected`` ("The call needs to be in the state TVOCallStateConnected for stats
    /// reports to be delivered").
    public func getStats() -> CallStatsReport? {
        let (state, media, pair, sample) = handle.withLock { ($0.machine.state, $0.media, $0.selectedPair, $0.latestSample) }
        guard state == .connected, let media else { return nil }
        let meter = media.meter
        let uplink = meter.uplinkTotals
        let codec = media.codec.format.name
        let local = LocalAudioTrackStats(
            trackId: "audio-local", ssrc: media.configuration.ssrc, codec: codec, packetsSent: meter.packetsSent,
            bytesSent: meter.bytesSent, packetsLost: uplink.map { max(0, Int($0.expected) - Int($0.received)) } ?? 0,
            roundTripTime: sample?.rtt ?? 0, jitter: uplink.map { Double($0.jitterMicroseconds) / 1000 } ?? 0,
            audioLevel: sample?.audioInputLevel ?? 0)
        let remote = meter.downlinkSSRC.map { ssrc in
            RemoteAudioTrackStats(
                trackId: "audio-remote", ssrc: ssrc, codec: codec, packetsReceived: meter.packetsReceived,
                bytesReceived: meter.bytesReceived, packetsLost: meter.downlink.lost, jitter: meter.downlink.jitterMilliseconds,
                audioLevel: sample?.audioOutputLevel ?? 0, mos: sample?.mos ?? 0)
        }
        return CallStatsReport(
            peerConnectionId: media.configuration.cname, timestamp: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)),
            localAudioTrackStats: [local], remoteAudioTrackStats: remote.map { [$0] } ?? [], selectedIceCandidatePair: pair)
    }
}
