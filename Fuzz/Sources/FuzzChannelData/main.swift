import FuzzSupport
import PreflightCore

// TURN ChannelData (RFC 8656 §12.4), as a UDP datagram and as a stream frame. Properties: the
// encoder's length matches its output and a decoded message re-encodes to an equal one.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChannelData(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    for padded in [false, true] {
        guard let message = try? ChannelData(decoding: input, padded: padded) else { continue }
        precondition(ChannelData.validChannelNumbers.contains(message.channelNumber), "channel number out of range")
        let encoded = message.encoded(padded: padded)
        precondition(encoded.count == message.encodedLength(padded: padded), "encodedLength differs from the output")
        precondition(encoded.count <= input.count, "encoding is longer than the input it came from")
        let again: ChannelData
        do { again = try ChannelData(decoding: encoded, padded: padded) } catch {
            preconditionFailure("re-encoded ChannelData does not decode: \(error)")
        }
        precondition(again == message, "re-encoded ChannelData decodes differently")
    }
    return 0
}

@_cdecl("FuzzChannelData_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzChannelData)
}
