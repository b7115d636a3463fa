import FuzzSupport
import PreflightOpus

// Opus RTP payloads (RFC 7587) from the network through `OpusDecoder`: libopus parses them, our
// wrapper bounds their size and the output. Properties, at 48 kHz and at the SDK's 8 kHz: a
// payload decodes to at most 120 ms of audio or a coded error (70002, 70005); an empty payload
// conceals exactly 20 ms; the decoder keeps working after any payload.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpus(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    for rate in [48_000, 8000] {
        guard let decoder = try? OpusDecoder(sampleRate: rate) else { preconditionFailure("no Opus decoder in the fuzz build") }
        do {
            let pcm = try decoder.decode(input)
            precondition(pcm.count <= rate * 120 / 1000, "\(pcm.count) samples from one payload at \(rate) Hz")
        } catch {
            precondition(error.code == .malformed || error.code == .invalidArgument, "uncoded error \(error)")
        }
        guard let concealed = try? decoder.decode([]), concealed.count == rate / 50 else {
            preconditionFailure("concealment after a hostile payload failed at \(rate) Hz")
        }
    }
    return 0
}

@_cdecl("FuzzOpus_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOpus)
}
