/// One picture in I420 (YUV 4:2:0, planar): a full-size luma plane and two chroma planes of half
/// the width and height (rounded up). Every camera format is converted to it on arrival, so the
/// checks, the snapshot and a future encoder see one layout.
public struct VideoFrame: Sendable, Hashable {
    /// Pixels across.
    public var width: Int
    /// Pixels down.
    public var height: Int
    /// Luma (Y), `width × height` bytes, row by row.
    public var luma: [UInt8]
    /// Blue-difference chroma (U), `chromaWidth × chromaHeight` bytes.
    public var chromaBlue: [UInt8]
    /// Red-difference chroma (V), `chromaWidth × chromaHeight` bytes.
    public var chromaRed: [UInt8]
    /// When the frame was captured, seconds on the source's monotonic clock.
    public var timestamp: Double

    /// The largest frame accepted: 8192 × 8192 pixels (a 96 MiB I420 frame), so that a hostile
    /// size cannot ask for unbounded memory.
    public static let maximumDimension = 8192

    /// The chroma planes' width.
    public var chromaWidth: Int { (width + 1) / 2 }
    /// The chroma planes' height.
    public var chromaHeight: Int { (height + 1) / 2 }

    /// Creates a frame from its planes.
    /// - Throws: ``PreflightError`` `invalidArgument` (70005) when a size is out of range or a
    ///   plane's length does not match it.
    public init(width: Int, height: Int, luma: [UInt8], chromaBlue: [UInt8], chromaRed: [UInt8], timestamp: Double = 0)
        throws(PreflightError)
    {
        try Self.checkSize(width: width, height: height)
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        guard luma.count == width * height, chromaBlue.count == chroma, chromaRed.count == chroma else {
            throw PreflightError(
                code: .invalidArgument,
                message: "video frame \(width)×\(height): planes of \(luma.count), \(chromaBlue.count), \(chromaRed.count) bytes")
        }
        self.width = width
        self.height = height
        self.luma = luma
        self.chromaBlue = chromaBlue
        self.chromaRed = chromaRed
        self.timestamp = timestamp
    }

    /// A frame of one colour (`luma` 16 and neutral chroma is video black).
    public static func filled(width: Int, height: Int, luma: UInt8, chromaBlue: UInt8 = 128, chromaRed: UInt8 = 128, timestamp: Double = 0)
        throws(PreflightError) -> VideoFrame
    {
        try checkSize(width: width, height: height)
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        return try VideoFrame(
            width: width, height: height, luma: Array(repeating: luma, count: width * height),
            chromaBlue: Array(repeating: chromaBlue, count: chroma), chromaRed: Array(repeating: chromaRed, count: chroma),
            timestamp: timestamp)
    }

    /// Checks a frame size: 1 to ``maximumDimension`` pixels each way.
    /// - Throws: 70005 otherwise.
    public static func checkSize(width: Int, height: Int) throws(PreflightError) {
        guard (1...maximumDimension).contains(width), (1...maximumDimension).contains(height) else {
            throw PreflightError(
                code: .invalidArgument, message: "video frame size \(width)×\(height); 1 to \(maximumDimension) each way is allowed")
        }
    }
}
