/// A browser's SDP offer (RFC 8866), read as far as the edge answers it: the JSEP subset (RFC
/// 8829) a WebRTC peer connection sends for a call with a microphone and perhaps a camera. Each
/// media section's kind, port, protocol, formats and `mid`; its codecs (`rtpmap`, `fmtp`); its ICE
/// credentials (RFC 8839), DTLS fingerprint and role (RFC 8842); `rtcp-mux`, direction and SSRCs;
/// the session's `BUNDLE` group (RFC 9143). Attributes the edge does not use are skipped.
///
/// The text is hostile: at most ``maximumBytes`` bytes, ``maximumLines`` lines,
/// ``maximumSections`` media sections and ``maximumFormats`` formats per section; a line that is
/// not `x=value`, or a value the edge uses that breaks its grammar, is 70002 naming the line.
/// What an offer lacks for an answer (no audio, no codec, no sha-256 fingerprint) is decided by
/// ``BrowserAnswer``, not here.
public struct BrowserOffer: Sendable, Hashable {
    /// An RTP payload format a section offers (`a=rtpmap`, RFC 8866 §6.6).
    public struct Codec: Sendable, Hashable {
        public var payloadType: UInt8
        /// The encoding name as offered (`opus`, `PCMU`, `VP8`, …).
        public var name: String
        public var clockRate: Int
        /// Audio channels; 1 when the offer names none.
        public var channels: Int
        /// The format's `a=fmtp` parameters, as offered.
        public var parameters: String?
    }

    /// A DTLS certificate fingerprint (RFC 8122 §5).
    public struct Fingerprint: Sendable, Hashable {
        /// The hash function's name, lowercased (`sha-256`).
        public var algorithm: String
        public var bytes: [UInt8]
    }

    /// One `m=` section.
    public struct Section: Sendable, Hashable {
        /// `audio`, `video`, `application`, …
        public var kind: String
        public var port: Int
        /// `UDP/TLS/RTP/SAVPF` for WebRTC media.
        public var transport: String
        /// The formats of the `m=` line, in the offer's order of preference.
        public var formats: [String]
        public var mid: String?
        /// The codecs of ``formats`` that have an `rtpmap`, in the same order.
        public var codecs: [Codec] = []
        public var iceUfrag: String?
        public var icePassword: String?
        public var fingerprints: [Fingerprint] = []
        /// `actpass`, `active` or `passive` (RFC 8842 §3).
        public var setup: String?
        public var rtcpMux = false
        /// `sendrecv` unless the section says otherwise.
        public var direction = "sendrecv"
        /// The SSRCs the browser will send, in order of first mention (at most 16).
        public var ssrcs: [UInt32] = []
    }

    /// Bytes an offer may have; a browser's is a few kilobytes.
    public static let maximumBytes = 64 << 10
    /// Lines an offer may have.
    public static let maximumLines = 4_000
    /// `m=` sections an offer may have.
    public static let maximumSections = 16
    /// Formats one `m=` line may list.
    public static let maximumFormats = 128

    public var sections: [Section] = []
    /// The `mid`s of the first `a=group:BUNDLE`, in order.
    public var bundle: [String] = []
    /// Session-level values, which a section's own replace.
    public var iceUfrag: String?
    public var icePassword: String?
    public var fingerprints: [Fingerprint] = []
    public var setup: String?

    /// Parses an offer.
    /// - Throws: ``PreflightError`` 70002 (`malformed`) when it is too large, has a line that is
    ///   not SDP, or a value the edge uses that breaks its grammar.
    public init(parsing text: String) throws(PreflightError) {
        guard text.utf8.count <= Self.maximumBytes else {
            throw PreflightError(code: .malformed, message: "SDP: the offer has \(text.utf8.count) bytes, at most \(Self.maximumBytes) are read")
        }
        var lineNumber = 0
        var sawVersion = false
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            lineNumber += 1
            guard lineNumber <= Self.maximumLines else {
                throw PreflightError(code: .malformed, message: "SDP: more than \(Self.maximumLines) lines")
            }
            var bytes = rawLine[...]
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            if bytes.isEmpty { continue }
            guard bytes.count >= 2, bytes.dropFirst().first == UInt8(ascii: "="), let line = String(bytes) else {
                throw Self.bad(lineNumber, "is not 'x=value'", String(decoding: bytes, as: UTF8.self))
            }
            let type = line.unicodeScalars.first
            let value = String(line.unicodeScalars.dropFirst(2))
            if !sawVersion {
                guard type == "v", value == "0" else { throw Self.bad(lineNumber, "SDP starts with v=0", line) }
                sawVersion = true
                continue
            }
            switch type {
            case "m": try startSection(value, line: lineNumber)
            case "a": try attribute(value, line: lineNumber)
            default: continue
            }
        }
        guard sawVersion else { throw PreflightError(code: .malformed, message: "SDP: empty offer") }
        orderCodecs()
    }

    private mutating func startSection(_ value: String, line: Int) throws(PreflightError) {
        guard sections.count < Self.maximumSections else {
            throw PreflightError(code: .malformed, message: "SDP: more than \(Self.maximumSections) media sections")
        }
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        // m=<media> <port>[/<count>] <proto> <fmt> ...
        guard fields.count >= 4, fields.count - 3 <= Self.maximumFormats,
            let port = Int(fields[1].split(separator: "/").first ?? ""), (0...65_535).contains(port),
            fields[0].utf8.count <= 32, fields[2].utf8.count <= 64, fields[3...].allSatisfy({ $0.utf8.count <= 32 })
        else { throw Self.bad(line, "is not 'm=media port proto formats' (at most \(Self.maximumFormats) formats)", "m=" + value) }
        sections.append(Section(kind: String(fields[0]), port: port, transport: String(fields[2]), formats: fields[3...].map(String.init)))
    }

    private mutating func attribute(_ value: String, line: Int) throws(PreflightError) {
        let (name, argument) = Self.split(value)
        let inSection = !sections.isEmpty
        switch name {
        case "group":
            // a=group:BUNDLE 0 1: the first BUNDLE group (the edge answers one transport).
            let fields = argument.split(separator: " ", omittingEmptySubsequences: true)
            if fields.first == "BUNDLE", bundle.isEmpty { bundle = fields.dropFirst().prefix(Self.maximumSections).map(String.init) }
        case "ice-ufrag":
            // RFC 8839 §5.4: 4 to 256 ice-chars.
            guard (4...256).contains(argument.utf8.count), argument.utf8.allSatisfy(ICECandidate.isICEChar) else {
                throw Self.bad(line, "ice-ufrag is not 4 to 256 ice-chars", "a=" + value)
            }
            if inSection { sections[sections.count - 1].iceUfrag = argument } else { iceUfrag = argument }
        case "ice-pwd":
            guard (22...256).contains(argument.utf8.count), argument.utf8.allSatisfy(ICECandidate.isICEChar) else {
                throw Self.bad(line, "ice-pwd is not 22 to 256 ice-chars", "a=ice-pwd:…")
            }
            if inSection { sections[sections.count - 1].icePassword = argument } else { icePassword = argument }
        case "fingerprint":
            let fingerprint = try Self.fingerprint(argument, line: line)
            if inSection {
                if sections[sections.count - 1].fingerprints.count < 8 { sections[sections.count - 1].fingerprints.append(fingerprint) }
            } else if fingerprints.count < 8 {
                fingerprints.append(fingerprint)
            }
        case "setup":
            guard ["actpass", "active", "passive", "holdconn"].contains(argument) else {
                throw Self.bad(line, "setup is not actpass, active, passive or holdconn", "a=" + value)
            }
            if inSection { sections[sections.count - 1].setup = argument } else { setup = argument }
        case "mid" where inSection:
            guard (1...32).contains(argument.utf8.count), argument.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw Self.bad(line, "mid is not 1 to 32 visible characters", "a=" + value)
            }
            // RFC 9143 §9.2: a mid names one section (the answer and BUNDLE refer to it).
            guard !sections.contains(where: { $0.mid == argument }) else { throw Self.bad(line, "mid is used twice", "a=" + value) }
            sections[sections.count - 1].mid = argument
        case "rtcp-mux" where inSection:
            sections[sections.count - 1].rtcpMux = true
        case "sendrecv", "sendonly", "recvonly", "inactive":
            if inSection { sections[sections.count - 1].direction = name }
        case "rtpmap" where inSection:
            try rtpmap(argument, line: line)
        case "fmtp" where inSection:
            // a=fmtp:<format> <parameters>: kept for a codec the section maps.
            let (format, parameters) = Self.split(argument, at: " ")
            if let payloadType = UInt8(format), parameters.utf8.count <= 512,
                let index = sections[sections.count - 1].codecs.firstIndex(where: { $0.payloadType == payloadType })
            {
                sections[sections.count - 1].codecs[index].parameters = parameters
            }
        case "ssrc" where inSection:
            // a=ssrc:<ssrc> <attribute>: the SSRCs, not their attributes.
            let (number, _) = Self.split(argument, at: " ")
            guard let ssrc = UInt32(number) else { throw Self.bad(line, "ssrc is not a 32-bit number", "a=" + value) }
            if !sections[sections.count - 1].ssrcs.contains(ssrc), sections[sections.count - 1].ssrcs.count < 16 {
                sections[sections.count - 1].ssrcs.append(ssrc)
            }
        default:
            return
        }
    }

    /// a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>], for a format of the `m=` line.
    private mutating func rtpmap(_ argument: String, line: Int) throws(PreflightError) {
        let (format, encoding) = Self.split(argument, at: " ")
        let parts = encoding.split(separator: "/", omittingEmptySubsequences: false)
        guard let payloadType = UInt8(format), payloadType < 128, parts.count == 2 || parts.count == 3,
            (1...32).contains(parts[0].utf8.count), parts[0].utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let clockRate = Int(parts[1]), (1...1_000_000).contains(clockRate)
        else { throw Self.bad(line, "rtpmap is not 'type name/rate[/channels]'", "a=rtpmap:" + argument) }
        var channels = 1
        if parts.count == 3 {
            guard let count = Int(parts[2]), (1...8).contains(count) else {
                throw Self.bad(line, "rtpmap channels are not 1 to 8", "a=rtpmap:" + argument)
            }
            channels = count
        }
        let index = sections.count - 1
        guard sections[index].formats.contains(format), !sections[index].codecs.contains(where: { $0.payloadType == payloadType }) else { return }
        sections[index].codecs.append(Codec(payloadType: payloadType, name: String(parts[0]), clockRate: clockRate, channels: channels))
    }

    /// Each section's codecs in the `m=` line's order, the offer's preference: once, at the end.
    private mutating func orderCodecs() {
        for index in sections.indices {
            var position: [String: Int] = [:]
            for (offset, format) in sections[index].formats.enumerated() where position[format] == nil { position[format] = offset }
            sections[index].codecs.sort { (position[String($0.payloadType)] ?? 0) < (position[String($1.payloadType)] ?? 0) }
        }
    }

    /// a=fingerprint:<hash> <hex pairs separated by colons>.
    private static func fingerprint(_ argument: String, line: Int) throws(PreflightError) -> Fingerprint {
        let (algorithm, hex) = split(argument, at: " ")
        let pairs = hex.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...16).contains(algorithm.utf8.count), (16...64).contains(pairs.count) else {
            throw bad(line, "fingerprint is not 'hash XX:XX:…'", "a=fingerprint:" + argument)
        }
        var bytes: [UInt8] = []
        for pair in pairs {
            guard pair.utf8.count == 2, let byte = UInt8(pair, radix: 16) else {
                throw bad(line, "fingerprint is not 'hash XX:XX:…'", "a=fingerprint:" + argument)
            }
            bytes.append(byte)
        }
        return Fingerprint(algorithm: algorithm.lowercased(), bytes: bytes)
    }

    /// `name:value` (or `name` alone) at the first `separator`.
    static func split(_ text: String, at separator: Unicode.Scalar = ":") -> (String, String) {
        let scalars = text.unicodeScalars
        guard let index = scalars.firstIndex(of: separator) else { return (text, "") }
        return (String(scalars[..<index]), String(scalars[scalars.index(after: index)...]))
    }

    static func bad(_ line: Int, _ what: String, _ text: String) -> PreflightError {
        PreflightError(code: .malformed, message: "SDP line \(line): \(what): \(UntrustedText.quoted(text, limit: 120))")
    }
}
