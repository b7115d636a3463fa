/// One side's ICE parameters in an offer or answer: credentials for connectivity checks and candidates.
public struct ICEParameters: Sendable, Hashable, Codable {
    /// The username fragment (RFC 8445 §5.3; at least 4 ice-chars).
    public var ufrag: String
    /// The password (at least 22 ice-chars).
    public var pwd: String
    /// The candidates gathered so far.
    public var candidates: [ICECandidate]
    /// Whether this side is an ICE-lite agent (the edge is).
    public var lite: Bool

    /// Creates parameters.
    public init(ufrag: String, pwd: String, candidates: [ICECandidate] = [], lite: Bool = false) {
        self.ufrag = ufrag
        self.pwd = pwd
        self.candidates = candidates
        self.lite = lite
    }

    /// Checks the RFC 8445 §5.3 lengths and characters (ALPHA / DIGIT / "+" / "/").
    /// - Throws: ``PreflightError`` `.malformed`.
    public func validate() throws(PreflightError) {
        func isICEChars(_ text: String) -> Bool { text.utf8.allSatisfy(ICECandidate.isICEChar) }
        guard (4...256).contains(ufrag.utf8.count), isICEChars(ufrag) else {
            throw PreflightError(code: .malformed, message: "ICE: ufrag must be 4 to 256 ice-chars, got \(UntrustedText.quoted(ufrag))")
        }
        guard (22...256).contains(pwd.utf8.count), isICEChars(pwd) else {
            throw PreflightError(code: .malformed, message: "ICE: pwd must be 22 to 256 ice-chars (got \(pwd.utf8.count) characters)")
        }
    }
}
