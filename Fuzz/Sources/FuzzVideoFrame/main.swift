import FuzzSupport
import PreflightCore

// Camera buffers (a V4L2 driver's, or raw frames on a pipe). The first five bytes choose the
// format (one of four), width and height (1-64 each) and a stride padding (0-15); the rest is
// the buffer. Properties: conversion gives planes of exactly the frame's sizes or a coded error;
// a frame is as similar to itself as can be; black means no luma above 20; RGB and a PNG of it
// have the right sizes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVideoFrame(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    guard input.count >= 5 else { return 0 }
    let format = CameraPixelFormat.allCases[Int(input[0]) % CameraPixelFormat.allCases.count]
    let width = Int(input[1]) % 64 + 1
    let height = Int(input[2]) % 64 + 1
    let padding = Int(input[3]) % 16
    let stride = input[4] & 1 == 0 ? 0 : format.minimumBytesPerLine(width: width) + padding
    guard let frame = try? VideoFrame(converting: input[5...], format: format, width: width, height: height, bytesPerLine: stride) else {
        return 0
    }
    precondition(frame.luma.count == width * height, "luma plane size")
    precondition(frame.chromaBlue.count == frame.chromaWidth * frame.chromaHeight, "chroma plane size")
    precondition(frame.chromaRed.count == frame.chromaBlue.count, "chroma planes differ")
    if width >= 8, height >= 8 {
        let similarity = frame.structuralSimilarity(to: frame)
        precondition(abs(similarity - 1) < 1e-9, "a frame is not the same as itself: \(similarity)")
    }
    precondition(frame.isBlack() == (frame.luma.allSatisfy { $0 <= 20 }), "black is no luma above 20")
    let rgb = frame.rgb()
    precondition(rgb.count == width * height * 3, "RGB size")
    guard let png = try? PNGImage.encode(rgb: rgb, width: width, height: height) else {
        preconditionFailure("a converted frame does not encode as PNG")
    }
    precondition(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "PNG signature")
    return 0
}

@_cdecl("FuzzVideoFrame_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzVideoFrame)
}
