#if os(Linux)
import CMediaBatch
#endif

/// Seconds since an origin on the clock `ContinuousClock` reads (CLOCK_BOOTTIME on Linux), as a
/// `Double`, read straight from the system on Linux: the media service reads it on every
/// datagram, and turning an `Instant` difference into seconds through `Duration` (128-bit
/// arithmetic) cost more than the read itself.
struct ContinuousSeconds: Sendable {
    #if os(Linux)
    private let origin: Int64
    #else
    private let origin: ContinuousClock.Instant
    #endif

    /// Starts at 0 now.
    init() {
        #if os(Linux)
        origin = Int64(preflight_media_clock_nanoseconds())
        #else
        origin = .now
        #endif
    }

    /// Seconds since the origin.
    var elapsed: Double {
        #if os(Linux)
        Double(Int64(preflight_media_clock_nanoseconds()) &- origin) * 1e-9
        #else
        let components = (ContinuousClock.now - origin).components
        return Double(components.seconds) + Double(components.attoseconds) * 1e-18
        #endif
    }
}
