import PreflightCore

/// Hand-built RTP/RTCP byte vectors, written out field by field from the RFC 3550 / RFC 8285 layouts,
/// and small helpers shared by the RTP test suites.
enum RTPFixtures {
    /// The error code `body` throws, `nil` when it succeeds, and -1 for an error that is not a
    /// ``PreflightError`` (which no codec may throw).
    static func errorCode(_ body: () throws -> Void) -> PreflightError.Code? {
        do {
            try body()
            return nil
        } catch let error as PreflightError {
            return error.code
        } catch {
            return PreflightError.Code(-1)
        }
    }

    /// Whether `error` is what a decoder may throw on bad input: `.truncated` or `.malformed`.
    static func isDecodeError(_ error: any Error) -> Bool {
        guard let error = error as? PreflightError else { return false }
        return error.code == .truncated || error.code == .malformed
    }

    // MARK: RTP

    /// PCMU with marker, two CSRCs and the RFC 8285 §4.2 one-byte example extension.
    static let pcmuWithCSRCsAndOneByteExtension: [UInt8] = [
        0x92,  // V=2 (10), P=0, X=1, CC=2
        0x80,  // M=1, PT=0 (PCMU)
        0x12, 0x34,  // sequence number 0x1234
        0x00, 0x00, 0x06, 0x40,  // timestamp 1600 (10 frames of 160 samples)
        0xDE, 0xAD, 0xBE, 0xEF,  // SSRC
        0x01, 0x02, 0x03, 0x04,  // CSRC 1
        0x05, 0x06, 0x07, 0x08,  // CSRC 2
        0xBE, 0xDE, 0x00, 0x03,  // profile 0xBEDE, length 3 words
        0x10, 0xA0,  // ID 1, L=0 (1 byte): A0
        0x21, 0xB0, 0xB1,  // ID 2, L=1 (2 bytes): B0 B1
        0x00, 0x00,  // two padding bytes
        0x33, 0xC0, 0xC1, 0xC2, 0xC3,  // ID 3, L=3 (4 bytes): C0..C3
        0xFF, 0x7F, 0x00, 0x80,  // payload (4 µ-law samples)
    ]

    /// Dynamic payload type, padding, and the RFC 8285 §4.3 two-byte example extension (appbits 5).
    static let twoByteExtensionWithPadding: [UInt8] = [
        0xB0,  // V=2, P=1, X=1, CC=0
        0x60,  // M=0, PT=96
        0xFF, 0xFF,  // sequence number 65535
        0xFF, 0xFF, 0xFF, 0xFF,  // timestamp 2^32 - 1
        0x00, 0x00, 0x00, 0x01,  // SSRC 1
        0x10, 0x05, 0x00, 0x03,  // profile 0x100 + appbits 5, length 3 words
        0x01, 0x00,  // ID 1, L=0 (no data)
        0x02, 0x01, 0xAA,  // ID 2, L=1: AA
        0x00,  // one padding byte
        0x03, 0x04, 0xB0, 0xB1, 0xB2, 0xB3,  // ID 3, L=4: B0..B3
        0x11, 0x22, 0x33,  // payload
        0x00, 0x00, 0x00, 0x04,  // RTP padding: 3 zeros and the count 4
    ]

    /// The smallest packet: a bare 12-byte header with an empty payload.
    static let bareHeader: [UInt8] = [
        0x80,  // V=2, P=0, X=0, CC=0
        0x08,  // M=0, PT=8 (PCMA)
        0x00, 0x01,  // sequence number 1
        0x00, 0x00, 0x00, 0x00,  // timestamp 0
        0xCA, 0xFE, 0xBA, 0xBE,  // SSRC
    ]

    /// Header bytes of the vectors above (fixed header + CSRCs + extension), where cutting must fail.
    static let rtpVectors: [(name: String, bytes: [UInt8], headerSize: Int)] = [
        ("pcmu", pcmuWithCSRCsAndOneByteExtension, 12 + 8 + 16),
        ("twoByte", twoByteExtensionWithPadding, 12 + 16),
        ("bare", bareHeader, 12),
    ]

    // MARK: RTCP

    /// A sender report with two report blocks (RFC 3550 §6.4.1).
    static let senderReport: [UInt8] = [
        0x82, 0xC8, 0x00, 0x12,  // V=2, P=0, RC=2, PT=200, length 18 (76 bytes)
        0x11, 0x22, 0x33, 0x44,  // SSRC of sender
        0xE8, 0xD4, 0xA5, 0x10,  // NTP seconds 3906250000 (Unix 1697261200)
        0x40, 0x00, 0x00, 0x00,  // NTP fraction 0.25 s
        0x00, 0x01, 0x23, 0x45,  // RTP timestamp
        0x00, 0x00, 0x03, 0xE8,  // sender's packet count 1000
        0x00, 0x02, 0x71, 0x00,  // sender's octet count 160000
        // report block 1
        0xAA, 0xBB, 0xCC, 0xDD,  // SSRC_1
        0x40, 0x00, 0x00, 0x05,  // fraction lost 64/256, cumulative lost 5
        0x00, 0x01, 0x00, 0x10,  // extended highest sequence number: 1 wrap, seq 16
        0x00, 0x00, 0x00, 0x20,  // interarrival jitter 32
        0xA5, 0x10, 0x00, 0x00,  // LSR
        0x00, 0x01, 0x80, 0x00,  // DLSR 1.5 s
        // report block 2
        0x01, 0x02, 0x03, 0x04,  // SSRC_2
        0x00, 0xFF, 0xFF, 0xFD,  // fraction lost 0, cumulative lost -3 (24-bit two's complement)
        0x00, 0x00, 0xFF, 0xFF,  // extended highest sequence number 65535
        0x00, 0x00, 0x00, 0x00,  // jitter 0
        0x00, 0x00, 0x00, 0x00,  // LSR 0 (no SR yet)
        0x00, 0x00, 0x00, 0x00,  // DLSR 0
    ]

    /// A receiver report with one block and a 4-byte profile-specific extension.
    static let receiverReportWithExtension: [UInt8] = [
        0x81, 0xC9, 0x00, 0x08,  // V=2, P=0, RC=1, PT=201, length 8 (36 bytes)
        0x55, 0x66, 0x77, 0x88,  // SSRC of packet sender
        0x11, 0x22, 0x33, 0x44,  // SSRC_1
        0xFF, 0x7F, 0xFF, 0xFF,  // fraction lost 255, cumulative lost 8388607 (the 24-bit maximum)
        0x00, 0x00, 0x00, 0x64,  // extended highest sequence number 100
        0x00, 0x00, 0x01, 0x00,  // jitter 256
        0x12, 0x34, 0x56, 0x78,  // LSR
        0x00, 0x00, 0x00, 0x01,  // DLSR 1/65536 s
        0xDE, 0xAD, 0xBE, 0xEF,  // profile-specific extension
    ]

    /// A source description with one chunk holding CNAME "user@host" (RFC 3550 §6.5).
    static let sdesCNAME: [UInt8] = [
        0x81, 0xCA, 0x00, 0x04,  // V=2, P=0, SC=1, PT=202, length 4 (20 bytes)
        0x11, 0x22, 0x33, 0x44,  // SSRC/CSRC_1
        0x01, 0x09,  // CNAME, 9 bytes
        0x75, 0x73, 0x65, 0x72, 0x40, 0x68, 0x6F, 0x73, 0x74,  // "user@host"
        0x00,  // END (items were 11 bytes, one null reaches the boundary)
    ]

    /// Three chunks: the second has items ending on a boundary, so it needs four null octets;
    /// the third has no items at all.
    static let sdesThreeChunks: [UInt8] = [
        0x83, 0xCA, 0x00, 0x08,  // V=2, P=0, SC=3, PT=202, length 8 (36 bytes)
        0x11, 0x22, 0x33, 0x44,  // chunk 1 SSRC
        0x01, 0x01, 0x61,  // CNAME "a"
        0x06, 0x02, 0x70, 0x66,  // TOOL "pf"
        0x00,  // END (items 7 bytes + 1 null)
        0x55, 0x66, 0x77, 0x88,  // chunk 2 SSRC
        0x01, 0x02, 0x61, 0x62,  // CNAME "ab" (items 4 bytes)
        0x00, 0x00, 0x00, 0x00,  // END + 3 nulls to the next boundary
        0x99, 0x99, 0x99, 0x99,  // chunk 3 SSRC
        0x00, 0x00, 0x00, 0x00,  // no items: END + 3 nulls
    ]

    /// A goodbye with reason "left" (RFC 3550 §6.6).
    static let byeWithReason: [UInt8] = [
        0x81, 0xCB, 0x00, 0x03,  // V=2, P=0, SC=1, PT=203, length 3 (16 bytes)
        0x11, 0x22, 0x33, 0x44,  // SSRC
        0x04, 0x6C, 0x65, 0x66, 0x74,  // reason length 4, "left"
        0x00, 0x00, 0x00,  // nulls to the 32-bit boundary
    ]

    /// A goodbye for two sources, no reason, with 4 bytes of RTCP padding.
    static let byePadded: [UInt8] = [
        0xA2, 0xCB, 0x00, 0x03,  // V=2, P=1, SC=2, PT=203, length 3 (16 bytes)
        0x11, 0x22, 0x33, 0x44,  // SSRC 1
        0x55, 0x66, 0x77, 0x88,  // SSRC 2
        0x00, 0x00, 0x00, 0x04,  // padding: 3 zeros and the count 4
    ]

    /// An APP packet (type 204), which this codec keeps as an unknown packet.
    static let app: [UInt8] = [
        0x85, 0xCC, 0x00, 0x03,  // V=2, P=0, subtype 5, PT=204, length 3 (16 bytes)
        0x11, 0x22, 0x33, 0x44,  // SSRC
        0x50, 0x46, 0x4C, 0x54,  // name "PFLT"
        0x01, 0x02, 0x03, 0x04,  // application data
    ]

    /// The compound datagram a sender emits: SR, SDES (CNAME), BYE.
    static let compound: [UInt8] = senderReport + sdesCNAME + byeWithReason

    /// Every single-packet RTCP vector.
    static let rtcpVectors: [(name: String, bytes: [UInt8])] = [
        ("SR", senderReport),
        ("RR", receiverReportWithExtension),
        ("SDES", sdesCNAME),
        ("SDES3", sdesThreeChunks),
        ("BYE", byeWithReason),
        ("BYEpadded", byePadded),
        ("APP", app),
    ]
}
