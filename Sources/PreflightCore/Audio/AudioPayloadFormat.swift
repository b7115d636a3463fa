/// An audio RTP payload format as signaling names it and the wire carries it: the encoding name
/// of the `invite`'s `codecs` and the `answer`'s `codec`, the payload type and the RTP clock.
/// The client, the edge and the command line speak of a call's codec through this one type.
///
/// The edge never transcodes: it echoes, records and bridges payloads as they come, so it speaks
/// every format here whether or not it has the codec itself.
public struct AudioPayloadFormat: Sendable, Hashable {
    /// The encoding name in its usual spelling (`"PCMU"`, `"opus"`); matched without case.
    public let name: String
    /// The RTP payload type.
    public let payloadType: UInt8
    /// The RTP clock rate, Hz.
    public let clockRate: Int

    /// G.711 μ-law: payload type 0, 8 kHz (RFC 3551 §4.5.14).
    public static let pcmu = AudioPayloadFormat(name: "PCMU", payloadType: MuLaw.payloadType, clockRate: MuLaw.clockRate)
    /// Opus: a dynamic payload type (111, as browsers offer it) and a 48 kHz clock whatever the
    /// audio's bandwidth (RFC 7587 §4.1).
    public static let opus = AudioPayloadFormat(name: "opus", payloadType: 111, clockRate: 48_000)
    /// Every format the edge speaks, in no order of preference.
    public static let known: [AudioPayloadFormat] = [.pcmu, .opus]

    /// The RTP timestamp units of one 20 ms frame (160 for PCMU, 960 for Opus).
    public var frameTimestampIncrement: UInt32 { UInt32(clockRate / 50) }

    /// The known format of an encoding name, ignoring case; `nil` for any other name.
    public static func named(_ name: String) -> AudioPayloadFormat? {
        guard name.utf8.count <= 32 else { return nil }
        return known.first { $0.name.lowercased() == name.lowercased() }
    }

    /// How many entries of an offer's codec list are read: an offer is hostile input.
    public static let maximumOfferEntries = 16

    /// The first of `offered` (by the offerer's preference) that is a known format, or `nil`;
    /// only the first ``maximumOfferEntries`` are read.
    public static func firstKnown(of offered: [String]) -> AudioPayloadFormat? {
        offered.prefix(maximumOfferEntries).lazy.compactMap(named).first
    }

    /// Whether `offered` names this format among its first ``maximumOfferEntries``.
    public func isOffered(in offered: [String]) -> Bool {
        offered.prefix(Self.maximumOfferEntries).contains { Self.named($0) == self }
    }

    /// The format of an `answer`: its codec must be known and its payload type the one Preflight
    /// binds to that codec (the edge assigns them; a client does not send a type it cannot read).
    /// - Throws: 70103 for an unknown codec or an unexpected payload type.
    public static func answered(codec: String, payloadType: UInt8) throws(PreflightError) -> AudioPayloadFormat {
        guard let format = named(codec), format.payloadType == payloadType else {
            throw PreflightError(
                code: .unsupportedCodec,
                message: "answer: codec \(UntrustedText.quoted(codec)) with payload type \(payloadType) is not one this client speaks (PCMU 0, opus 111)")
        }
        return format
    }
}
