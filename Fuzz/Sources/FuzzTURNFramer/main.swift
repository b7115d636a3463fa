import FuzzSupport
import PreflightCore

// The TURN-over-TCP/TLS stream framer, fed the way a socket delivers bytes: in chunks of arbitrary
// sizes. The input is a sequence of records, one size byte followed by up to that many stream bytes,
// so the fuzzer controls both the stream and where the reads split it. Properties: chunking does
// not change the frames (compared with feeding the whole stream at once), every frame is STUN- or
// ChannelData-shaped with the length its header says, and a malformed stream fails the same way.

/// The frames a framer yields from `chunks`, and whether it stopped on an error.
func frames(of chunks: [ArraySlice<UInt8>]) -> (frames: [[UInt8]], failed: Bool) {
    var framer = TURNStreamFramer()
    var frames: [[UInt8]] = []
    for chunk in chunks {
        framer.append(chunk)
        while true {
            let frame: [UInt8]?
            do { frame = try framer.next() } catch { return (frames, true) }
            guard let frame else { break }
            frames.append(frame)
        }
    }
    return (frames, false)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTURNFramer(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    var chunks: [ArraySlice<UInt8>] = []
    var stream: [UInt8] = []
    var index = 0
    while index < input.count {
        let size = Int(input[index])
        index += 1
        let end = min(input.count, index + size)
        chunks.append(input[index..<end])
        stream += input[index..<end]
        index = end
    }
    let chunked = frames(of: chunks)
    let whole = frames(of: [stream[...]])
    precondition(chunked.frames == whole.frames, "chunking changed the frames")
    precondition(chunked.failed == whole.failed, "chunking changed whether the stream is malformed")
    var offset = 0
    for frame in chunked.frames {
        precondition(frame.count >= 4 && frame.count <= TURNStreamFramer.maximumFrameLength, "frame of \(frame.count) bytes")
        let length = Int(frame[2]) << 8 | Int(frame[3])
        switch frame[0] >> 6 {
        case 0: precondition(frame.count == 20 + length, "STUN frame of \(frame.count) bytes, header says \(length)")
        case 1: precondition(frame.count == 4 + length, "ChannelData frame of \(frame.count) bytes, header says \(length)")
        default: preconditionFailure("frame starts with 0x\(String(frame[0], radix: 16))")
        }
        precondition(stream[offset..<(offset + frame.count)].elementsEqual(frame), "frame is not the stream's bytes")
        offset += frame[0] >> 6 == 1 ? (frame.count + 3) & ~3 : frame.count
        // What the TURN client does with each frame.
        _ = try? STUNMessage(decoding: frame)
        _ = try? ChannelData(decoding: frame)
    }
    return 0
}

@_cdecl("FuzzTURNFramer_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzTURNFramer)
}
