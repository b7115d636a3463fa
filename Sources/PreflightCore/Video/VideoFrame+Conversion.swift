extension VideoFrame {
    /// Converts a captured buffer to I420.
    /// - Parameters:
    ///   - bytes: the buffer as the device or pipe delivered it.
    ///   - format: its pixel format.
    ///   - width: pixels across.
    ///   - height: pixels down.
    ///   - bytesPerLine: the luma (or packed) row stride; 0 for tightly packed rows.
    ///   - timestamp: seconds on the source's clock.
    /// - Throws: ``PreflightError`` `truncated` (70001) when the buffer is shorter than the size
    ///   and stride need, `invalidArgument` (70005) for a size out of range or a stride narrower
    ///   than a row.
    public init(
        converting bytes: some Collection<UInt8>, format: CameraPixelFormat, width: Int, height: Int, bytesPerLine: Int = 0,
        timestamp: Double = 0
    ) throws(PreflightError) {
        try Self.checkSize(width: width, height: height)
        let minimum = format.minimumBytesPerLine(width: width)
        let stride = bytesPerLine == 0 ? minimum : bytesPerLine
        guard stride >= minimum, stride <= minimum + 4096 else {
            throw PreflightError(code: .invalidArgument, message: "\(format) row stride \(stride) for width \(width)")
        }
        let input = Array(bytes)
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        var luma = [UInt8](repeating: 0, count: width * height)
        var blue = [UInt8](repeating: 128, count: chromaWidth * chromaHeight)
        var red = [UInt8](repeating: 128, count: chromaWidth * chromaHeight)
        func need(_ count: Int) throws(PreflightError) {
            guard input.count >= count else {
                throw PreflightError(
                    code: .truncated, message: "\(format) frame \(width)×\(height): \(input.count) bytes, \(count) needed")
            }
        }
        switch format {
        case .yuyv:
            try need(stride * (height - 1) + minimum)
            for row in 0..<height {
                let base = row * stride
                for pair in 0..<chromaWidth {
                    let offset = base + pair * 4
                    luma[row * width + pair * 2] = input[offset]
                    if pair * 2 + 1 < width { luma[row * width + pair * 2 + 1] = input[offset + 2] }
                    // 4:2:2 to 4:2:0: the even rows' chroma.
                    if row % 2 == 0 {
                        blue[(row / 2) * chromaWidth + pair] = input[offset + 1]
                        red[(row / 2) * chromaWidth + pair] = input[offset + 3]
                    }
                }
            }
        case .nv12, .i420:
            // Chroma rows are half the luma stride (rounded up), as V4L2 and ffmpeg lay them out.
            let chromaStride = format == .nv12 ? (stride + 1) / 2 * 2 : (stride + 1) / 2
            let lumaSize = stride * height
            let chromaPlane = chromaStride * chromaHeight
            try need(lumaSize + (format == .nv12 ? chromaPlane : 2 * chromaPlane))
            for row in 0..<height {
                for column in 0..<width { luma[row * width + column] = input[row * stride + column] }
            }
            for row in 0..<chromaHeight {
                for column in 0..<chromaWidth {
                    if format == .nv12 {
                        let offset = lumaSize + row * chromaStride + column * 2
                        blue[row * chromaWidth + column] = input[offset]
                        red[row * chromaWidth + column] = input[offset + 1]
                    } else {
                        blue[row * chromaWidth + column] = input[lumaSize + row * chromaStride + column]
                        red[row * chromaWidth + column] = input[lumaSize + chromaPlane + row * chromaStride + column]
                    }
                }
            }
        case .rgb24:
            try need(stride * (height - 1) + minimum)
            for row in 0..<height {
                for column in 0..<width {
                    let offset = row * stride + column * 3
                    let (y, u, v) = Self.yuv(red: input[offset], green: input[offset + 1], blue: input[offset + 2])
                    luma[row * width + column] = y
                    if row % 2 == 0, column % 2 == 0 {
                        blue[(row / 2) * chromaWidth + column / 2] = u
                        red[(row / 2) * chromaWidth + column / 2] = v
                    }
                }
            }
        }
        try self.init(width: width, height: height, luma: luma, chromaBlue: blue, chromaRed: red, timestamp: timestamp)
    }

    /// The frame as RGB, 3 bytes a pixel, rows top to bottom (BT.601, limited range: luma 16 is black).
    public func rgb() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for row in 0..<height {
            for column in 0..<width {
                let c = Int(luma[row * width + column]) - 16
                let chroma = (row / 2) * chromaWidth + column / 2
                let d = Int(chromaBlue[chroma]) - 128
                let e = Int(chromaRed[chroma]) - 128
                let offset = (row * width + column) * 3
                out[offset] = Self.clamp((298 * c + 409 * e + 128) >> 8)
                out[offset + 1] = Self.clamp((298 * c - 100 * d - 208 * e + 128) >> 8)
                out[offset + 2] = Self.clamp((298 * c + 516 * d + 128) >> 8)
            }
        }
        return out
    }

    /// BT.601 limited-range YUV of an RGB pixel.
    static func yuv(red: UInt8, green: UInt8, blue: UInt8) -> (UInt8, UInt8, UInt8) {
        let r = Int(red), g = Int(green), b = Int(blue)
        let y = ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16
        let u = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128
        let v = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128
        return (clamp(y), clamp(u), clamp(v))
    }

    static func clamp(_ value: Int) -> UInt8 { UInt8(min(255, max(0, value))) }
}
