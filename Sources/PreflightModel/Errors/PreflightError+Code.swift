extension PreflightError.Code {
    // MARK: Test lifecycle (Twilio's codes, "Twilio Voice SDK: PreflightTest", docs/references.md)

    /// 31008: the test or call was cancelled, e.g. by `stop()`.
    public static let cancelled = Self(31008)

    // MARK: Wire formats (Preflight's own range, 70000–70099)

    /// 70001: a packet or message is shorter than its headers or length fields say.
    public static let truncated = Self(70001)
    /// 70002: a field holds a value the format does not allow (wrong version, bad magic cookie,
    /// misaligned length, attribute in the wrong place).
    public static let malformed = Self(70002)
    /// 70003: a STUN MESSAGE-INTEGRITY or MESSAGE-INTEGRITY-SHA256 check failed.
    public static let integrityCheckFailed = Self(70003)
    /// 70004: a STUN FINGERPRINT did not match the message.
    public static let fingerprintMismatch = Self(70004)
    /// 70005: an encoder was asked for something the format cannot carry (too many CSRCs,
    /// an extension element that is too long, a value out of range).
    public static let invalidArgument = Self(70005)
    /// 70006: an SRTP or SRTCP packet failed its AEAD authentication: a changed header, payload
    /// or tag, or a packet protected with another key (RFC 7714 §9.2).
    public static let srtpAuthenticationFailed = Self(70006)
    /// 70007: an SRTP or SRTCP packet was already received, or is older than the 64-packet replay
    /// window (RFC 3711 §3.3.2).
    public static let srtpReplayed = Self(70007)
    /// 70008: an SRTP context was asked to protect or accept a stream (SSRC) beyond the most it
    /// keeps state for, or a stream has used up its packet indexes and needs a new key.
    public static let srtpStreamLimitReached = Self(70008)
    /// 70009: a browser's SDP offer is well formed but the edge cannot answer it: no audio section
    /// it can take (DTLS-SRTP with rtcp-mux, a codec it speaks), no ICE credentials, no sha-256
    /// fingerprint, or a DTLS role other than the client's.
    public static let sdpOfferNotAnswerable = Self(70009)
}
