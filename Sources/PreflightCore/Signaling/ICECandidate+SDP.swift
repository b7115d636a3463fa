extension ICECandidate {
    /// The SDP attribute value (RFC 8839 §5.1), without the `a=` prefix:
    /// `candidate:1 1 udp 2130706431 198.18.0.1 40000 typ host`.
    public var sdpAttribute: String {
        var text = "candidate:\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(type.rawValue)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        if let tcpType { text += " tcptype \(tcpType)" }
        return text
    }

    /// Parses an SDP `candidate` attribute (with or without `a=` and `candidate:` prefixes).
    /// Unknown extension attributes (name-value pairs after the known ones) are ignored, as RFC 8839 requires.
    /// - Throws: ``PreflightError`` `.malformed` naming the field that is wrong.
    public init(sdpAttribute: String) throws(PreflightError) {
        // SDP is split on the space scalar, not on Characters: a combining mark after a space (or
        // after "candidate:") would otherwise merge with it into one grapheme, so the text this
        // type prints for a parsed candidate would split differently when parsed again.
        var text = Substring(sdpAttribute).unicodeScalars
        if text.starts(with: "a=".unicodeScalars) { text = text.dropFirst(2) }
        if text.starts(with: "candidate:".unicodeScalars) { text = text.dropFirst("candidate:".unicodeScalars.count) }
        let fields = text.split(separator: " ", omittingEmptySubsequences: true).map { Substring($0) }
        func bad(_ what: String) -> PreflightError {
            PreflightError(code: .malformed, message: "ICE candidate: \(what) in \(UntrustedText.quoted(sdpAttribute, limit: 160))")
        }
        guard fields.count >= 8, fields[6] == "typ" else { throw bad("expected 'foundation component transport priority address port typ type'") }
        // RFC 8839 §5.1: foundation = 1*32ice-char (ALPHA / DIGIT / "+" / "/").
        guard (1...32).contains(fields[0].utf8.count), fields[0].utf8.allSatisfy(Self.isICEChar) else {
            throw bad("foundation must be 1 to 32 ice-chars")
        }
        guard let component = Int(fields[1]), (1...256).contains(component) else { throw bad("component is not 1…256") }
        guard let priority = UInt32(fields[3]) else { throw bad("priority is not a 32-bit number") }
        guard let port = UInt16(fields[5]) else { throw bad("port is not 0…65535") }
        let transport = fields[2].lowercased()
        guard transport == "udp" || transport == "tcp" else { throw bad("transport '\(fields[2])' is not udp or tcp") }
        self.init(
            foundation: String(fields[0]), component: component, transport: transport, priority: priority,
            address: String(fields[4]), port: port, type: ICECandidateType(rawValue: String(fields[7])))
        var index = 8
        while index + 1 < fields.count {
            let name = fields[index]
            let value = fields[index + 1]
            switch name {
            case "raddr": relatedAddress = String(value)
            case "rport":
                guard let port = UInt16(value) else { throw bad("rport is not 0…65535") }
                relatedPort = port
            case "tcptype": tcpType = String(value)
            default: break
            }
            index += 2
        }
    }

    /// Whether `byte` is an RFC 8839 ice-char: ALPHA / DIGIT / "+" / "/".
    /// Whether `byte` is an ice-char of RFC 8445 §5.3 (ALPHA / DIGIT / "+" / "/"), the alphabet of
    /// foundations, ufrags and passwords.
    static func isICEChar(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2B
            || byte == 0x2F
    }
}
