/// The edge's SDP answer to a ``BrowserOffer`` (JSEP, RFC 8829 §5.3): ICE-lite with the edge's
/// own candidates (RFC 8839), DTLS as the server (`a=setup:passive`, RFC 8842) with the edge's
/// sha-256 fingerprint, one transport for everything (BUNDLE, RFC 9143) and RTCP on it
/// (`rtcp-mux`, RFC 8035). It takes the offer's first audio section (Opus, else PCMU, else PCMA)
/// and the first video section in the same BUNDLE group (VP8, else the first video codec that is
/// not a repair format); every other section is answered as rejected (port 0), as JSEP requires an
/// answer to list every offered section in order.
public struct BrowserAnswer: Sendable, Hashable {
    /// A section the edge takes: its `mid`, the codec chosen and the SSRC the edge sends with.
    public struct Accepted: Sendable, Hashable {
        public var mid: String
        public var kind: String
        public var codec: BrowserOffer.Codec
        public var ssrc: UInt32
        /// The SSRCs the browser announced for it.
        public var remoteSSRCs: [UInt32]
    }

    /// The answer's text, CRLF line ends.
    public let text: String
    public let audio: Accepted
    public let video: Accepted?
    /// The browser's ICE credentials and DTLS fingerprint, for the ICE-lite agent and the DTLS
    /// server to check it by.
    public let remoteUfrag: String
    public let remotePassword: String
    public let remoteFingerprint: BrowserOffer.Fingerprint

    /// Answers `offer`.
    /// - Parameters:
    ///   - ufrag, password: the edge's ICE credentials for this connection.
    ///   - fingerprint: the sha-256 of the edge's DTLS certificate (32 bytes).
    ///   - candidates: the edge's host candidates (and none other: ICE-lite); the first gives the
    ///     `c=` line and the `m=` port.
    ///   - ssrcs: the SSRCs the edge sends with, audio and video.
    ///   - sessionID: the `o=` line's session id.
    /// - Throws: ``PreflightError`` 70009 when the offer cannot be answered (see
    ///   ``PreflightError/Code/sdpOfferNotAnswerable``); 70005 for arguments the answer cannot carry.
    public init(
        answering offer: BrowserOffer, ufrag: String, password: String, fingerprint: [UInt8], candidates: [ICECandidate],
        ssrcs: (audio: UInt32, video: UInt32), sessionID: UInt64
    ) throws(PreflightError) {
        guard fingerprint.count == 32, let first = candidates.first,
            (4...256).contains(ufrag.utf8.count), ufrag.utf8.allSatisfy(ICECandidate.isICEChar),
            (22...256).contains(password.utf8.count), password.utf8.allSatisfy(ICECandidate.isICEChar)
        else {
            throw PreflightError(code: .invalidArgument, message: "SDP answer: needs a 32-byte fingerprint, a candidate and valid ICE credentials")
        }
        func refuse(_ why: String) -> PreflightError {
            PreflightError(code: .sdpOfferNotAnswerable, message: "SDP: the offer cannot be answered: \(why)")
        }
        // The audio section: DTLS-SRTP, RTCP muxed, a mid, a codec the edge speaks.
        guard let audioIndex = offer.sections.firstIndex(where: { $0.kind == "audio" && $0.port != 0 }) else { throw refuse("no audio section") }
        let audioSection = offer.sections[audioIndex]
        guard audioSection.transport.uppercased().hasPrefix("UDP/TLS/RTP/SAVP") else {
            throw refuse("audio is \(UntrustedText.quoted(audioSection.transport, limit: 40)), not UDP/TLS/RTP/SAVPF")
        }
        guard audioSection.rtcpMux else { throw refuse("audio without rtcp-mux") }
        guard let audioMid = audioSection.mid else { throw refuse("audio without a mid") }
        guard let audioCodec = Self.audioCodec(audioSection.codecs) else { throw refuse("no Opus, PCMU or PCMA in the audio section") }
        // Credentials, fingerprint and role: the section's own, else the session's.
        guard let remoteUfrag = audioSection.iceUfrag ?? offer.iceUfrag, let remotePassword = audioSection.icePassword ?? offer.icePassword else {
            throw refuse("no ice-ufrag and ice-pwd")
        }
        let fingerprints = audioSection.fingerprints.isEmpty ? offer.fingerprints : audioSection.fingerprints
        guard let remoteFingerprint = fingerprints.first(where: { $0.algorithm == "sha-256" && $0.bytes.count == 32 }) else {
            throw refuse("no sha-256 fingerprint")
        }
        let setup = audioSection.setup ?? offer.setup ?? "actpass"
        guard setup == "actpass" || setup == "active" else { throw refuse("a=setup:\(setup): the edge is the DTLS server") }
        // Video rides the same transport: only in the audio's BUNDLE group.
        let bundled = offer.bundle.contains(audioMid)
        var videoIndex: Int?
        var videoCodec: BrowserOffer.Codec?
        if bundled, let index = offer.sections.firstIndex(where: {
            $0.kind == "video" && $0.port != 0 && $0.rtcpMux && $0.mid.map(offer.bundle.contains) == true
                && $0.transport.uppercased().hasPrefix("UDP/TLS/RTP/SAVP")
        }), let codec = Self.videoCodec(offer.sections[index].codecs) {
            videoIndex = index
            videoCodec = codec
        }
        audio = Accepted(mid: audioMid, kind: "audio", codec: audioCodec, ssrc: ssrcs.audio, remoteSSRCs: audioSection.ssrcs)
        video = videoIndex.flatMap { index in
            videoCodec.map { Accepted(mid: offer.sections[index].mid ?? "", kind: "video", codec: $0, ssrc: ssrcs.video, remoteSSRCs: offer.sections[index].ssrcs) }
        }
        self.remoteUfrag = remoteUfrag
        self.remotePassword = remotePassword
        self.remoteFingerprint = remoteFingerprint

        let family = first.address.contains(":") ? "IP6" : "IP4"
        var lines = ["v=0", "o=- \(sessionID) 2 IN \(family) \(first.address)", "s=-", "t=0 0"]
        let accepted = [audio.mid] + (video.map { [$0.mid] } ?? [])
        if bundled { lines.append("a=group:BUNDLE " + accepted.joined(separator: " ")) }
        lines.append("a=ice-lite")
        lines.append("a=msid-semantic: WMS preflight")
        let fingerprintText = "a=fingerprint:sha-256 " + fingerprint.map { Self.hex($0) }.joined(separator: ":")
        for (index, section) in offer.sections.enumerated() {
            let chosen: Accepted? = index == audioIndex ? audio : (index == videoIndex ? video : nil)
            guard let chosen else {
                // Rejected: port 0, the offer's first format, its mid (RFC 8829 §5.3.1).
                lines.append("m=\(section.kind) 0 \(section.transport) \(section.formats.first ?? "0")")
                lines.append("c=IN \(family) \(first.address)")
                if let mid = section.mid { lines.append("a=mid:\(mid)") }
                lines.append("a=inactive")
                continue
            }
            let codec = chosen.codec
            lines.append("m=\(section.kind) \(first.port) \(section.transport) \(codec.payloadType)")
            lines.append("c=IN \(family) \(first.address)")
            lines.append("a=ice-ufrag:\(ufrag)")
            lines.append("a=ice-pwd:\(password)")
            lines.append(fingerprintText)
            lines.append("a=setup:passive")
            lines.append("a=mid:\(chosen.mid)")
            lines.append("a=" + Self.direction(answering: section.direction))
            lines.append("a=rtcp-mux")
            lines.append("a=rtpmap:\(codec.payloadType) \(codec.name)/\(codec.clockRate)" + (codec.channels > 1 ? "/\(codec.channels)" : ""))
            if let parameters = codec.parameters { lines.append("a=fmtp:\(codec.payloadType) \(parameters)") }
            lines.append("a=msid:preflight preflight-\(chosen.kind)")
            lines.append("a=ssrc:\(chosen.ssrc) cname:preflight")
            for candidate in candidates { lines.append("a=" + candidate.sdpAttribute) }
            lines.append("a=end-of-candidates")
        }
        text = lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Opus, else PCMU, else PCMA: the edge echoes the browser's packets, so any codec both
    /// speak would do; these are the ones the reference's MOS is defined for.
    static func audioCodec(_ codecs: [BrowserOffer.Codec]) -> BrowserOffer.Codec? {
        for (name, rate) in [("opus", 48_000), ("pcmu", 8_000), ("pcma", 8_000)] {
            if let codec = codecs.first(where: { $0.name.lowercased() == name && $0.clockRate == rate }) { return codec }
        }
        return nil
    }

    /// VP8, else the first video codec that is not a repair or redundancy format.
    static func videoCodec(_ codecs: [BrowserOffer.Codec]) -> BrowserOffer.Codec? {
        let media = codecs.filter { !["rtx", "red", "ulpfec", "flexfec-03"].contains($0.name.lowercased()) && $0.clockRate == 90_000 }
        return media.first { $0.name.lowercased() == "vp8" } ?? media.first
    }

    /// The answer's direction for an offered one (RFC 8866 §6.7).
    static func direction(answering offered: String) -> String {
        switch offered {
        case "sendonly": "recvonly"
        case "recvonly": "sendonly"
        case "inactive": "inactive"
        default: "sendrecv"
        }
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }
}
