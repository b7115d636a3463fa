/// One RTCP packet (RFC 3550 §6), decoded by type.
public enum RTCPPacket: Sendable, Hashable {
    /// A sender report (type 200).
    case senderReport(RTCPSenderReport)
    /// A receiver report (type 201).
    case receiverReport(RTCPReceiverReport)
    /// A source description (type 202).
    case sourceDescription(RTCPSourceDescription)
    /// A goodbye (type 203).
    case goodbye(RTCPGoodbye)
    /// Any other type, kept as raw bytes.
    case unknown(RTCPUnknownPacket)

    /// Decodes exactly one packet, choosing the case by packet type.
    /// - Throws: ``PreflightError`` as the decoder of that type does.
    public init(decoding bytes: ArraySlice<UInt8>) throws(PreflightError) {
        try self.init(header: RTCPHeader.parse(bytes, context: "RTCP"))
    }

    /// Decodes exactly one packet from an array.
    public init(decoding bytes: [UInt8]) throws(PreflightError) {
        try self.init(decoding: bytes[...])
    }

    init(header: RTCPHeader) throws(PreflightError) {
        switch header.packetType {
        case RTCPSenderReport.packetType: self = .senderReport(try RTCPSenderReport(header: header))
        case RTCPReceiverReport.packetType: self = .receiverReport(try RTCPReceiverReport(header: header))
        case RTCPSourceDescription.packetType: self = .sourceDescription(try RTCPSourceDescription(header: header))
        case RTCPGoodbye.packetType: self = .goodbye(try RTCPGoodbye(header: header))
        default: self = .unknown(RTCPUnknownPacket(header: header))
        }
    }

    /// The packet type on the wire.
    public var packetType: UInt8 {
        switch self {
        case .senderReport: RTCPSenderReport.packetType
        case .receiverReport: RTCPReceiverReport.packetType
        case .sourceDescription: RTCPSourceDescription.packetType
        case .goodbye: RTCPGoodbye.packetType
        case .unknown(let packet): packet.packetType
        }
    }

    /// Padding bytes at the end of the packet, including the count byte (0: P bit clear).
    public var paddingCount: UInt8 {
        switch self {
        case .senderReport(let packet): packet.paddingCount
        case .receiverReport(let packet): packet.paddingCount
        case .sourceDescription(let packet): packet.paddingCount
        case .goodbye(let packet): packet.paddingCount
        case .unknown(let packet): packet.paddingCount
        }
    }

    /// Appends the encoded packet to `output`; on error `output` is left unchanged.
    /// - Throws: ``PreflightError`` `.invalidArgument` as the encoder of that type does.
    public func encode(into output: inout [UInt8]) throws(PreflightError) {
        switch self {
        case .senderReport(let packet): try packet.encode(into: &output)
        case .receiverReport(let packet): try packet.encode(into: &output)
        case .sourceDescription(let packet): try packet.encode(into: &output)
        case .goodbye(let packet): try packet.encode(into: &output)
        case .unknown(let packet): try packet.encode(into: &output)
        }
    }

    /// The encoded packet.
    /// - Throws: as ``encode(into:)``.
    public func encoded() throws(PreflightError) -> [UInt8] {
        var output: [UInt8] = []
        try encode(into: &output)
        return output
    }
}
