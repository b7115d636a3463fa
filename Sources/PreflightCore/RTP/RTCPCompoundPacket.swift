/// A compound RTCP datagram: RTCP packets stacked back to back (RFC 3550 §6.1).
public struct RTCPCompoundPacket: Sendable, Hashable {
    /// The packets, in wire order.
    public var packets: [RTCPPacket]

    /// Creates a compound packet.
    public init(_ packets: [RTCPPacket]) {
        self.packets = packets
    }

    /// Decodes a datagram, checking that every length word fits and that they add up to its size.
    ///
    /// Every packet must be version 2. With `strict`, the RFC 3550 A.2 header validity checks
    /// are added: the first packet is an SR or RR, and only the last packet may have the P bit set.
    /// - Parameters:
    ///   - bytes: the whole datagram.
    ///   - strict: whether to apply the RFC 3550 A.2 checks.
    /// - Throws: ``PreflightError`` `.truncated` for an empty datagram or a length word that runs past
    ///   its end; `.malformed` for another version, a failed strict check, or a packet that is
    ///   malformed on its own.
    public init(decoding bytes: ArraySlice<UInt8>, strict: Bool = false) throws(PreflightError) {
        guard !bytes.isEmpty else {
            throw PreflightError(code: .truncated, message: "RTCP compound: empty datagram")
        }
        var packets: [RTCPPacket] = []
        var rest = bytes
        while !rest.isEmpty {
            let size = try RTCPHeader.packetSize(startOf: rest)
            guard size <= rest.count else {
                throw PreflightError(
                    code: .truncated,
                    message:
                        "RTCP compound: packet \(packets.count + 1) at offset \(rest.startIndex - bytes.startIndex) "
                        + "says \(size) bytes, \(rest.count) left"
                )
            }
            let end = rest.startIndex + size
            let packetBytes = rest[..<end]
            rest = rest[end...]
            let header = try RTCPHeader.parse(packetBytes, context: "RTCP")
            if strict {
                if packets.isEmpty,
                    header.packetType != RTCPSenderReport.packetType,
                    header.packetType != RTCPReceiverReport.packetType
                {
                    throw PreflightError(
                        code: .malformed,
                        message:
                            "RTCP compound: first packet has type \(header.packetType), expected SR (200) or RR (201)"
                    )
                }
                if packetBytes[packetBytes.startIndex] & 0x20 != 0, !rest.isEmpty {
                    throw PreflightError(
                        code: .malformed,
                        message:
                            "RTCP compound: packet \(packets.count + 1) has the padding bit set but is not the last"
                    )
                }
            }
            packets.append(try RTCPPacket(header: header))
        }
        self.packets = packets
    }

    /// Decodes a datagram from an array (see the `ArraySlice` overload).
    public init(decoding bytes: [UInt8], strict: Bool = false) throws(PreflightError) {
        try self.init(decoding: bytes[...], strict: strict)
    }

    /// Appends every packet to `output`, in order; on error `output` is left unchanged.
    /// - Throws: ``PreflightError`` `.invalidArgument` as the packets' encoders do.
    public func encode(into output: inout [UInt8]) throws(PreflightError) {
        let start = output.count
        for packet in packets {
            do {
                try packet.encode(into: &output)
            } catch {
                output.removeSubrange(start...)
                throw error
            }
        }
    }

    /// The encoded datagram.
    /// - Throws: as ``encode(into:)``.
    public func encoded() throws(PreflightError) -> [UInt8] {
        var output: [UInt8] = []
        try encode(into: &output)
        return output
    }
}
