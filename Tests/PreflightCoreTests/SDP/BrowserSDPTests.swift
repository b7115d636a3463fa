import Foundation
import PreflightCore
import Testing

/// A browser's SDP offer read and answered: a Chrome-shaped offer (audio with Opus first, video
/// with VP8 and its repair format, a data channel), the answer's shape, what cannot be answered
/// and what is refused as hostile.
@Suite struct BrowserSDPTests {
    static let fingerprint = (0..<32).map { String(format2: UInt8($0 * 7 & 0xFF)) }.joined(separator: ":")

    static func offer(
        audio: String = "111 63 9 0 8 110", setup: String = "actpass", bundle: String = "0 1 2", rtcpMux: Bool = true,
        fingerprintLine: String = "a=fingerprint:sha-256 \(fingerprint)", audioDirection: String = "sendrecv"
    ) -> String {
        """
        v=0
        o=- 4611731400430051336 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE \(bundle)
        a=extmap-allow-mixed
        a=msid-semantic: WMS stream
        m=audio 9 UDP/TLS/RTP/SAVPF \(audio)
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Xy7d
        a=ice-pwd:qY4mHbGx3ZkLr0pVn1uT2wS9
        a=ice-options:trickle
        \(fingerprintLine)
        a=setup:\(setup)
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=\(audioDirection)
        a=msid:stream track
        \(rtcpMux ? "a=rtcp-mux" : "a=rtcp-rsize")
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:110 telephone-event/48000
        a=ssrc:1001 cname:abc
        a=ssrc:1001 msid:stream track
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 102
        c=IN IP4 0.0.0.0
        a=ice-ufrag:Xy7d
        a=ice-pwd:qY4mHbGx3ZkLr0pVn1uT2wS9
        \(fingerprintLine)
        a=setup:\(setup)
        a=mid:1
        a=sendrecv
        a=rtcp-mux
        a=rtpmap:96 VP8/90000
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:102 H264/90000
        a=ssrc-group:FID 2001 2002
        a=ssrc:2001 cname:abc
        a=ssrc:2002 cname:abc
        m=application 9 UDP/DTLS/SCTP webrtc-datachannel
        c=IN IP4 0.0.0.0
        a=mid:2
        a=sctp-port:5000

        """.replacingOccurrences(of: "\n", with: "\r\n")
    }

    static let candidate = ICECandidate(
        foundation: "1", component: 1, transport: "udp", priority: 2_130_706_431, address: "198.18.0.1", port: 40_000, type: .host)

    static func answer(_ text: String) throws -> BrowserAnswer {
        try BrowserAnswer(
            answering: BrowserOffer(parsing: text), ufrag: "edgeUfrag", password: "edgepassword0123456789ab",
            fingerprint: Array(repeating: 0xAB, count: 32), candidates: [candidate], ssrcs: (0x1111, 0x2222), sessionID: 42)
    }

    @Test func anOfferIsReadSectionBySection() throws {
        let offer = try BrowserOffer(parsing: Self.offer())
        #expect(offer.bundle == ["0", "1", "2"])
        #expect(offer.sections.map(\.kind) == ["audio", "video", "application"])
        let audio = offer.sections[0]
        #expect(audio.codecs.map(\.name) == ["opus", "red", "G722", "PCMU", "PCMA", "telephone-event"])
        #expect(audio.codecs[0].channels == 2 && audio.codecs[0].parameters == "minptime=10;useinbandfec=1")
        #expect(audio.iceUfrag == "Xy7d" && audio.icePassword == "qY4mHbGx3ZkLr0pVn1uT2wS9")
        #expect(audio.fingerprints.first?.algorithm == "sha-256" && audio.fingerprints.first?.bytes.count == 32)
        #expect(audio.setup == "actpass" && audio.rtcpMux && audio.ssrcs == [1001] && audio.mid == "0")
        #expect(offer.sections[1].ssrcs == [2001, 2002])
        #expect(offer.sections[2].transport == "UDP/DTLS/SCTP")
        // Codecs follow the m= line's order, whatever order their rtpmap lines come in.
        let reordered = try BrowserOffer(parsing: "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 8 0 111\r\na=rtpmap:111 opus/48000/2\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:8 PCMA/8000\r\n")
        #expect(reordered.sections[0].codecs.map(\.payloadType) == [8, 0, 111])
    }

    @Test func theAnswerTakesOpusAndVP8AndRejectsTheRestInOrder() throws {
        let answer = try Self.answer(Self.offer())
        #expect(answer.audio.codec.name == "opus" && answer.audio.mid == "0" && answer.audio.remoteSSRCs == [1001])
        #expect(answer.video?.codec.name == "VP8" && answer.video?.mid == "1")
        #expect(answer.remoteUfrag == "Xy7d" && answer.remoteFingerprint.bytes.count == 32)
        let text = answer.text
        #expect(text.hasSuffix("\r\n") && !text.contains("\n\n"))
        for line in [
            "a=group:BUNDLE 0 1", "a=ice-lite", "m=audio 40000 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 198.18.0.1", "a=setup:passive",
            "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1", "a=ssrc:4369 cname:preflight",
            "a=candidate:1 1 udp 2130706431 198.18.0.1 40000 typ host", "m=video 40000 UDP/TLS/RTP/SAVPF 96",
            "m=application 0 UDP/DTLS/SCTP webrtc-datachannel", "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"),
        ] {
            #expect(text.contains(line + "\r\n"), "missing \(line)")
        }
        // The answer is SDP the same reader takes: every section, in the offer's order.
        let read = try BrowserOffer(parsing: text)
        #expect(read.sections.map(\.kind) == ["audio", "video", "application"])
        #expect(read.sections.map(\.port) == [40_000, 40_000, 0])
        #expect(read.sections[0].setup == "passive" && read.sections[0].ssrcs == [0x1111] && read.sections[1].ssrcs == [0x2222])
    }

    @Test func directionsAndPreferencesFollowTheOffer() throws {
        #expect(try Self.answer(Self.offer(audio: "0 8", audioDirection: "sendonly")).audio.codec.name == "PCMU")
        #expect(try Self.answer(Self.offer(audio: "8 9")).audio.codec.name == "PCMA")
        #expect(try Self.answer(Self.offer(audioDirection: "sendonly")).text.contains("a=mid:0\r\na=recvonly\r\n"))
        // Video outside the audio's BUNDLE group is not taken: one transport only.
        let unbundled = try Self.answer(Self.offer(bundle: "0"))
        #expect(unbundled.video == nil && unbundled.text.contains("m=video 0 UDP/TLS/RTP/SAVPF 96\r\n"))
    }

    @Test func whatCannotBeAnsweredIs70009() {
        let fingerprintMD5 = "a=fingerprint:md5 " + Array(repeating: "AB", count: 16).joined(separator: ":")
        for offer in [
            Self.offer(audio: "9"), Self.offer(setup: "passive"), Self.offer(rtcpMux: false), Self.offer(fingerprintLine: fingerprintMD5),
            Self.offer().replacingOccurrences(of: "m=audio 9", with: "m=audio 0"),
            Self.offer().replacingOccurrences(of: "a=ice-ufrag:Xy7d\r\n", with: ""),
        ] {
            #expect(RTPFixtures.errorCode { _ = try Self.answer(offer) } == .sdpOfferNotAnswerable)
        }
    }

    @Test func hostileOffersAre70002() {
        let big = Self.offer() + String(repeating: "a=x-filler:0123456789\r\n", count: 4_000)
        let sections = "v=0\r\n" + String(repeating: "m=audio 9 UDP/TLS/RTP/SAVPF 0\r\n", count: 17)
        for text in [
            "", "hello", "v=1\r\n", big, sections, "v=0\r\nm=audio 70000 RTP/AVP 0\r\n", "v=0\r\nm=audio 9\r\n",
            "v=0\r\nnot sdp\r\n", "v=0\r\na=ice-ufrag:ab\r\n", "v=0\r\na=ice-ufrag:bad ufrag\r\n",
            "v=0\r\na=fingerprint:sha-256 ZZ:00\r\n", "v=0\r\nm=audio 9 X 0\r\na=rtpmap:0 PCMU/zero\r\n",
            "v=0\r\nm=audio 9 X 0\r\na=rtpmap:0 PCMU/8000/99\r\n", "v=0\r\nm=audio 9 X 0\r\na=ssrc:notanumber cname:x\r\n",
            "v=0\r\nm=audio 9 X 0\r\na=mid:\r\n", "v=0\r\na=setup:sideways\r\n",
            "v=0\r\nm=audio 9 X 0\r\na=mid:a\r\nm=video 9 X 0\r\na=mid:a\r\n",
        ] {
            #expect(RTPFixtures.errorCode { _ = try BrowserOffer(parsing: text) } == .malformed, "\(text.prefix(60))")
        }
    }
}

extension String {
    /// Two uppercase hex digits.
    fileprivate init(format2 byte: UInt8) {
        let digits = Array("0123456789ABCDEF")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
