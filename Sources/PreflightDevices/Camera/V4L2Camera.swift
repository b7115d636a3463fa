import CV4L2
import Foundation
import PreflightCore

/// A camera through Video4Linux2: memory-mapped buffers, streaming capture, any of the
/// uncompressed formats ``CameraFormatNegotiation`` takes. Written against the V4L2 API and
/// compiled everywhere, but never run against a real camera here: this project's machines have
/// no `/dev/video*` (and cannot load v4l2loopback). Its pure parts (format negotiation, the
/// buffer ring, pixel conversion) are unit-tested; opening a node that is not a camera is tested
/// for its coded error.
public final class V4L2Camera: FrameSource {
    /// What the frames come from, for results and messages.
    public let sourceID: String
    /// The width asked for.
    public let requestedWidth: Int
    /// The height asked for.
    public let requestedHeight: Int
    /// The format the driver agreed to.
    public let format: CameraPixelFormat
    /// The size the driver agreed to.
    public let width: Int
    /// The size the driver agreed to.
    public let height: Int
    private let descriptor: Int32
    private let bytesPerLine: Int
    private var buffers: [(start: UnsafeMutableRawPointer, length: UInt32)] = []
    private var cycle: BufferCycle
    private var streaming = false
    private var closed = false
    private var firstTimestamp: UInt64?

    /// Frames the driver dropped so far (gaps in its sequence numbers).
    public var droppedFrames: Int { cycle.droppedFrames }

    /// Opens `device`, negotiates a format near `width` × `height` at `framesPerSecond`, maps 4
    /// buffers and starts streaming.
    /// - Throws: ``PreflightError`` `deviceNotFound` (70401) for a node that is missing or not a
    ///   capture device, `deviceBusy` (70402), `devicePermissionDenied` (70403),
    ///   `deviceFormatUnsupported` (70404), `deviceFailed` (70406).
    public init(device: String, width: Int = 640, height: Int = 480, framesPerSecond: Int = 30) throws(PreflightError) {
        sourceID = device
        requestedWidth = width
        requestedHeight = height
        let descriptor = preflight_v4l2_open(device)
        guard descriptor >= 0 else { throw Self.error(descriptor, "opening \(device)") }
        self.descriptor = descriptor
        do throws(PreflightError) {
            guard try Self.query(descriptor: descriptor, device: device) != nil else {
                throw PreflightError(code: .deviceNotFound, message: "V4L2: \(device) is not a camera (no streaming video capture)")
            }
            let choice = try CameraFormatNegotiation(offered: Self.offered(descriptor)).choose(width: width, height: height)
            var agreedWidth = UInt32(clamping: choice.width), agreedHeight = UInt32(clamping: choice.height)
            var fourCC = choice.format.rawValue, stride: UInt32 = 0, imageSize: UInt32 = 0
            try Self.check(preflight_v4l2_set_format(descriptor, &agreedWidth, &agreedHeight, &fourCC, &stride, &imageSize), "setting the format")
            guard let agreed = CameraPixelFormat(rawValue: fourCC) else {
                throw PreflightError(code: .deviceFormatUnsupported, message: "V4L2: \(device) chose \(CameraPixelFormat.name(of: fourCC))")
            }
            format = agreed
            self.width = Int(agreedWidth)
            self.height = Int(agreedHeight)
            bytesPerLine = Int(stride)
            _ = preflight_v4l2_set_frame_rate(descriptor, UInt32(clamping: framesPerSecond))  // a request; drivers may refuse
            let granted = preflight_v4l2_request_buffers(descriptor, 4)
            try Self.check(granted, "requesting buffers")
            cycle = BufferCycle(count: Int(granted))
        } catch {
            preflight_v4l2_close(descriptor)
            throw error
        }
        do throws(PreflightError) {
            for index in 0..<cycle.count {
                var start: UnsafeMutableRawPointer?
                var length: UInt32 = 0
                try Self.check(preflight_v4l2_map_buffer(descriptor, UInt32(index), &start, &length), "mapping buffer \(index)")
                guard let start else { throw PreflightError(code: .deviceFailed, message: "V4L2: buffer \(index) mapped nowhere") }
                buffers.append((start, length))
                try cycle.willQueue(index)
                try Self.check(preflight_v4l2_queue(descriptor, UInt32(index)), "queueing buffer \(index)")
            }
            try Self.check(preflight_v4l2_stream(descriptor, 1), "starting the stream")
            streaming = true
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// The next frame (see ``FrameSource/nextFrame(stop:)``).
    public func nextFrame(stop: StopSignal) throws(PreflightError) -> VideoFrame? {
        guard !closed else { return nil }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(2)
        while !stop.isStopped {
            var index: UInt32 = 0, used: UInt32 = 0, sequence: UInt32 = 0
            var microseconds: UInt64 = 0
            let status = preflight_v4l2_dequeue(descriptor, 50, &index, &used, &microseconds, &sequence)
            if status == -EAGAIN {
                if clock.now >= deadline { throw PreflightError(code: .deviceFailed, message: "V4L2: \(sourceID) delivered nothing for 2 s") }
                continue
            }
            try Self.check(status, "reading a frame")
            try cycle.didDequeue(Int(index), sequence: sequence)
            let buffer = buffers[Int(index)]
            let bytes = UnsafeRawBufferPointer(start: buffer.start, count: Int(min(used, buffer.length)))
            let first = firstTimestamp ?? microseconds
            firstTimestamp = first
            let frame = try VideoFrame(
                converting: bytes, format: format, width: width, height: height, bytesPerLine: bytesPerLine,
                timestamp: Double(microseconds &- first) / 1e6)
            // The frame is copied: the buffer goes back to the driver at once.
            try cycle.willQueue(Int(index))
            try Self.check(preflight_v4l2_queue(descriptor, index), "requeueing buffer \(index)")
            return frame
        }
        return nil
    }

    /// Releases the source.
    public func close() {
        guard !closed else { return }
        closed = true
        if streaming { _ = preflight_v4l2_stream(descriptor, 0) }
        for buffer in buffers { preflight_v4l2_unmap_buffer(buffer.start, buffer.length) }
        buffers = []
        _ = preflight_v4l2_request_buffers(descriptor, 0)
        preflight_v4l2_close(descriptor)
    }

    /// The card's name and bus, or `nil` when the node is not a streaming capture device.
    static func query(descriptor: Int32, device: String) throws(PreflightError) -> (name: String, bus: String)? {
        var card = [CChar](repeating: 0, count: 64)
        var bus = [CChar](repeating: 0, count: 64)
        var isCamera: Int32 = 0
        let status = preflight_v4l2_query(descriptor, &card, card.count, &bus, bus.count, &isCamera)
        // ENOTTY: not a V4L2 node at all (a file, /dev/null).
        if status == -ENOTTY || status == -EINVAL { return nil }
        try check(status, "querying \(device)")
        guard isCamera != 0 else { return nil }
        return (String(decoding: card.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                String(decoding: bus.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Every capture format and its sizes (at most 64 of each, against a driver that never ends a list).
    static func offered(_ descriptor: Int32) -> [(fourCC: UInt32, sizes: [(width: Int, height: Int)])] {
        var offered: [(fourCC: UInt32, sizes: [(width: Int, height: Int)])] = []
        for index in 0..<64 {
            var fourCC: UInt32 = 0
            guard preflight_v4l2_enum_format(descriptor, UInt32(index), &fourCC) == 0 else { break }
            var sizes: [(width: Int, height: Int)] = []
            for sizeIndex in 0..<64 {
                var width: UInt32 = 0, height: UInt32 = 0
                guard preflight_v4l2_enum_size(descriptor, fourCC, UInt32(sizeIndex), &width, &height) == 0 else { break }
                sizes.append((Int(width), Int(height)))
            }
            offered.append((fourCC, sizes))
        }
        return offered
    }

    static func check(_ status: Int32, _ what: String) throws(PreflightError) {
        guard status < 0 else { return }
        throw error(status, what)
    }

    /// A negative errno as a device error.
    static func error(_ status: Int32, _ what: String) -> PreflightError {
        let code = -status
        let text = String(cString: strerror(code))
        let mapped: PreflightError.Code
        switch code {
        case ENOENT, ENODEV, ENXIO: mapped = .deviceNotFound
        case EBUSY: mapped = .deviceBusy
        case EACCES, EPERM: mapped = .devicePermissionDenied
        case ENOSYS: mapped = .deviceServiceUnavailable
        default: mapped = .deviceFailed
        }
        return PreflightError(code: mapped, message: "V4L2: \(what): \(text)")
    }
}
