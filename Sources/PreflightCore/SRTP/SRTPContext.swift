import CPreflightAEAD
import Crypto
// Only for the byte-buffer conformances (DataProtocol, Data) swift-crypto's API takes and returns.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// SRTP and SRTCP protection with AEAD_AES_128_GCM (RFC 3711, RFC 7714) or
/// AES_CM_128_HMAC_SHA1_80 (RFC 3711), sans-IO: packets in, packets out.
///
/// Use one context per direction: the sending side calls ``protectRTP(_:)`` and
/// ``protectRTCP(_:)``, the receiving side ``unprotectRTP(_:)`` and ``unprotectRTCP(_:)``. The
/// context keeps, per SSRC, the rollover counter and highest index (RFC 3711 §3.3.1) and a
/// 64-packet replay window (§3.3.2). A receiver commits that state only after a packet
/// authenticates, so forged packets change nothing. At most ``maximumStreamCount`` SSRCs are
/// tracked per kind; a packet of a further SSRC is refused, so hostile SSRCs cannot grow memory
/// (forgetting a stream instead would reopen its replay window).
public struct SRTPContext: Sendable {
    /// The most bytes SRTP adds to an RTP packet, whatever the profile: the 16-byte GCM tag (RFC
    /// 7714 §8); ``SRTPProfile/rtpOverhead`` is one profile's.
    public static let rtpOverhead = 16
    /// The most bytes SRTCP adds to an RTCP packet: the 16-byte tag and the 4-byte E flag ‖ SRTCP
    /// index (RFC 7714 §9); ``SRTPProfile/rtcpOverhead`` is one profile's.
    public static let rtcpOverhead = 20
    /// The most SSRCs a context keeps state for, per kind (RTP, RTCP) and direction.
    public static let maximumStreamCount = 16
    /// Packets the replay window covers, counting the highest received (RFC 3711 §3.3.2).
    public static let replayWindowSize = Int(SRTPReplayWindow.size)

    /// Sender state of one RTP stream: the highest index sent and the indexes just below it, so
    /// that an index (and with it a GCM nonce) is never used twice.
    struct RTPStream: Sendable {
        var window = SRTPReplayWindow()
    }

    /// Sender state of one RTCP stream: the next SRTCP index.
    struct RTCPSendStream: Sendable {
        var nextIndex: UInt32 = 0
    }

    /// The profile in use.
    public let profile: SRTPProfile
    let rtpKey: SymmetricKey
    let rtpSalt: [UInt8]
    let rtcpKey: SymmetricKey
    let rtcpSalt: [UInt8]
    /// The HMAC-SHA1 keys of the counter-mode profile; `nil` for the AEAD one.
    let rtpAuthenticationKey: SymmetricKey?
    let rtcpAuthenticationKey: SymmetricKey?
    /// The RTP key set up once in the system's libcrypto (``KeyedAEAD``), when it is there:
    /// swift-crypto's `AES.GCM` sets a key up and allocates its results on every packet. SRTCP
    /// (a packet every few seconds) stays with swift-crypto.
    let rtpAEAD: KeyedAEAD?

    var sentRTP: [UInt32: RTPStream] = [:]
    var receivedRTP: [UInt32: RTPStream] = [:]
    var sentRTCP: [UInt32: RTCPSendStream] = [:]
    var receivedRTCP: [UInt32: SRTPReplayWindow] = [:]

    /// A context protecting with `sessionKeys`.
    public init(sessionKeys: SRTPSessionKeys) {
        self.init(sessionKeys: sessionKeys, systemCrypto: true)
    }

    /// A context protecting with `sessionKeys`; with `systemCrypto` false, through swift-crypto
    /// only (the tests compare the two).
    init(sessionKeys: SRTPSessionKeys, systemCrypto: Bool) {
        profile = sessionKeys.profile
        rtpKey = SymmetricKey(data: sessionKeys.rtpKey)
        rtpSalt = sessionKeys.rtpSalt
        rtcpKey = SymmetricKey(data: sessionKeys.rtcpKey)
        rtcpSalt = sessionKeys.rtcpSalt
        let counterMode = sessionKeys.profile == .aesCM128HMACSHA1_80
        rtpAuthenticationKey = counterMode ? SymmetricKey(data: sessionKeys.rtpAuthenticationKey) : nil
        rtcpAuthenticationKey = counterMode ? SymmetricKey(data: sessionKeys.rtcpAuthenticationKey) : nil
        rtpAEAD = systemCrypto && !counterMode ? KeyedAEAD(key: sessionKeys.rtpKey) : nil
    }

    /// Whether this context's RTP goes through the system's libcrypto (else swift-crypto).
    public var usesSystemCrypto: Bool { rtpAEAD != nil }

    /// Loads the system's libcrypto now (once per process), so that the first context made on a
    /// call's set-up path does not pay for it. Whether it is there.
    @discardableResult
    public static func loadSystemCrypto() -> Bool {
        KeyedAEAD(key: [UInt8](repeating: 0, count: 16)) != nil
    }

    /// A context protecting with the session keys derived from `material` (RFC 7714 §12).
    /// - Throws: as ``SRTPSessionKeys/init(deriving:)``.
    public init(keyingMaterial material: SRTPKeyingMaterial) throws(PreflightError) {
        self.init(sessionKeys: try SRTPSessionKeys(deriving: material))
    }

    /// The error for a packet of a stream beyond ``maximumStreamCount``.
    static func tooManyStreams(_ kind: StaticString, ssrc: UInt32) -> PreflightError {
        PreflightError(
            code: .srtpStreamLimitReached,
            message: "\(kind): SSRC \(ssrc) would be stream \(maximumStreamCount + 1), at most \(maximumStreamCount) are kept")
    }

    /// The 12-byte GCM IV: `fields` (already laid out as RFC 7714 §8.1 or §9.1 say) XOR `salt`.
    static func initializationVector(_ fields: [UInt8], salt: [UInt8]) -> [UInt8] {
        var iv = fields
        for index in 0..<min(iv.count, salt.count) { iv[index] ^= salt[index] }
        return iv
    }

    /// AES-GCM encryption: ciphertext ‖ tag.
    static func seal(
        _ plaintext: ArraySlice<UInt8>, key: SymmetricKey, iv: [UInt8], aad: [UInt8], context: StaticString
    ) throws(PreflightError) -> [UInt8] {
        do {
            let box = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(data: iv), authenticating: aad)
            var output = [UInt8]()
            output.reserveCapacity(plaintext.count &+ rtpOverhead)
            output.append(contentsOf: box.ciphertext)
            output.append(contentsOf: box.tag)
            return output
        } catch {
            throw PreflightError(code: .invalidArgument, message: "\(context): AES-GCM refused the packet", underlying: error)
        }
    }

    /// AES-GCM decryption of ciphertext ‖ tag; any failure is an authentication failure.
    static func open(
        _ sealed: ArraySlice<UInt8>, key: SymmetricKey, iv: [UInt8], aad: [UInt8], context: StaticString
    ) throws(PreflightError) -> [UInt8] {
        guard sealed.count >= rtpOverhead else {
            throw PreflightError(code: .truncated, message: "\(context): truncated packet: no room for the 16-byte tag")
        }
        let tagStart = sealed.endIndex &- rtpOverhead
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: iv), ciphertext: sealed[sealed.startIndex..<tagStart], tag: sealed[tagStart...])
            return [UInt8](try AES.GCM.open(box, using: key, authenticating: aad))
        } catch {
            throw authenticationFailed(context)
        }
    }

    static func authenticationFailed(_ context: StaticString) -> PreflightError {
        PreflightError(code: .srtpAuthenticationFailed, message: "\(context): authentication tag does not match (altered packet or wrong key)")
    }
}
