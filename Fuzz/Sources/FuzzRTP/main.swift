import FuzzSupport
import PreflightCore

// RTP, both decoders: the in-place `RTPHeader` of the receive hot path and the owning `RTPPacket`,
// plus RFC 8285 header-extension element scanning (in place and owning) and the media
// extensions' readers. Properties: the two decoders agree field by field, the in-place element
// lookups agree with the owning ones, and a decoded packet re-encodes to an equal packet.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTP(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(data, count)
    let input = Array(bytes)
    let header = try? RTPHeader(parsing: bytes)
    let packet = try? RTPPacket(decoding: input)
    guard let header, let packet else {
        precondition(header == nil && packet == nil, "RTPHeader and RTPPacket disagree on validity")
        return 0
    }
    precondition(header.payloadRange.upperBound <= count && header.extensionRange.upperBound <= count, "ranges past the end")
    precondition(
        header.marker == packet.marker && header.payloadType == packet.payloadType
            && header.sequenceNumber == packet.sequenceNumber && header.timestamp == packet.timestamp
            && header.ssrc == packet.ssrc && header.paddingCount == packet.paddingCount,
        "fixed fields differ between the decoders")
    precondition(header.csrcCount == packet.csrcs.count, "CSRC counts differ")
    for index in 0..<header.csrcCount {
        precondition(header.csrc(at: index, in: bytes) == packet.csrcs[index], "CSRC \(index) differs")
    }
    precondition(input[header.payloadRange] == packet.payload, "payloads differ")
    precondition(header.extensionProfile == packet.headerExtension?.profile, "extension profiles differ")

    if let headerExtension = packet.headerExtension {
        precondition(input[header.extensionRange] == headerExtension.data, "extension bodies differ")
        let elements = try? headerExtension.elements()
        // The ids the media extensions use, the one-byte stop id 15, and a two-byte-only id.
        for id: UInt8 in [1, 2, 3, 7, 14, 15, 200] {
            let inPlace = header.extensionElement(id: id, in: bytes)
            let owned = headerExtension.element(id: id)
            precondition(inPlace.map { input[$0] } == owned, "element \(id) differs between in-place and owning lookups")
            if let elements, let first = elements.first(where: { $0.id == id }) {
                precondition(owned == first.data, "element(id: \(id)) is not the first of elements()")
            }
        }
    }
    _ = MediaExtension.sendTime(header, in: bytes)
    _ = MediaExtension.edgeSendTime(header, in: bytes)
    _ = MediaExtension.echoReport(header, in: bytes)

    let encoded: [UInt8]
    do { encoded = try packet.encoded() } catch { preconditionFailure("a decoded packet does not encode: \(error)") }
    let again: RTPPacket
    do { again = try RTPPacket(decoding: encoded) } catch { preconditionFailure("re-encoded packet does not decode: \(error)") }
    precondition(again == packet, "re-encoded packet decodes differently")
    return 0
}

@_cdecl("FuzzRTP_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzRTP)
}
