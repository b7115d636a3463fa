import PreflightCore

/// The bookkeeping of V4L2's memory-mapped buffer ring: which buffers the driver holds (queued)
/// and which one the reader holds (dequeued), and the frames the driver dropped (gaps in its
/// sequence numbers). Pure, so that a driver that hands back a buffer twice, or one it never had,
/// is an error and not memory read while the driver writes it.
struct BufferCycle {
    /// Buffers in the ring.
    let count: Int
    /// Buffers the driver holds.
    private(set) var queued: Set<Int> = []
    /// The buffer the reader holds, if any.
    private(set) var held: Int?
    /// Frames the driver skipped, from its sequence numbers.
    private(set) var droppedFrames = 0
    private var lastSequence: UInt32?

    init(count: Int) { self.count = count }

    /// Before VIDIOC_QBUF of `index`: it must be a buffer of the ring that the driver does not
    /// hold already.
    mutating func willQueue(_ index: Int) throws(PreflightError) {
        guard (0..<count).contains(index), !queued.contains(index) else {
            throw PreflightError(code: .deviceFailed, message: "V4L2: buffer \(index) cannot be queued (ring of \(count), queued \(queued.sorted()))")
        }
        if held == index { held = nil }
        queued.insert(index)
    }

    /// After VIDIOC_DQBUF returned `index` with `sequence`: it must be a buffer the driver held,
    /// and the reader may hold one buffer at a time.
    mutating func didDequeue(_ index: Int, sequence: UInt32) throws(PreflightError) {
        guard queued.contains(index), held == nil else {
            throw PreflightError(
                code: .deviceFailed, message: "V4L2: the driver returned buffer \(index), which it did not hold (or one is still held)")
        }
        queued.remove(index)
        held = index
        if let lastSequence, sequence &- lastSequence > 1, sequence &- lastSequence < 1 << 31 {
            droppedFrames += Int(sequence &- lastSequence) - 1
        }
        lastSequence = sequence
    }
}
