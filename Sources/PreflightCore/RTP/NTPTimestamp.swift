/// A 64-bit NTP timestamp (RFC 3550 §4, RFC 5905): seconds since 1900-01-01 UTC and a binary fraction.
public struct NTPTimestamp: Sendable, Hashable {
    /// Seconds from the NTP epoch (1900-01-01 00:00 UTC) to the Unix epoch (1970-01-01 00:00 UTC).
    public static let unixEpochOffset: UInt32 = 2_208_988_800

    /// Whole seconds since 1900 (era 0) or since 2036-02-07 06:28:16 UTC (era 1).
    public var seconds: UInt32
    /// Fraction of a second, in units of 2⁻³² s.
    public var fraction: UInt32

    /// Creates a timestamp from its two halves.
    @inlinable
    public init(seconds: UInt32, fraction: UInt32) {
        self.seconds = seconds
        self.fraction = fraction
    }

    /// The middle 32 bits (16.16 fixed point seconds), as carried in an RTCP report block's LSR field.
    @inlinable
    public var middle32Bits: UInt32 { seconds << 16 | fraction >> 16 }

    /// Creates a timestamp from Unix time (seconds since 1970, fractional).
    ///
    /// Times before 1968-01-20 or from 2104-02-26 on (outside the range that ``unixTime`` maps back,
    /// RFC 4330 §3) are clamped to its ends; NaN gives the zero timestamp.
    /// - Parameter unixTime: seconds since 1970-01-01 00:00 UTC.
    public init(unixTime: Double) {
        guard !unixTime.isNaN else {
            self.init(seconds: 0, fraction: 0)
            return
        }
        let lowest = -Double(Self.unixEpochOffset) + 2_147_483_648  // NTP 2^31, 1968-01-20
        let highest = lowest + 4_294_967_296  // exclusive, 2104-02-26
        guard unixTime >= lowest else {
            self.init(seconds: 0x8000_0000, fraction: 0)
            return
        }
        guard unixTime < highest else {
            self.init(seconds: 0x7FFF_FFFF, fraction: .max)
            return
        }
        // Floor and round by integer conversion (the value is finite and range-checked above),
        // so the core needs no libm.
        var whole = Int64(unixTime)
        if Double(whole) > unixTime { whole -= 1 }
        var fraction = UInt64((unixTime - Double(whole)) * 4_294_967_296 + 0.5)
        if fraction >= 1 << 32 {
            whole += 1
            fraction = 0
        }
        let ntpSeconds = whole + Int64(Self.unixEpochOffset)  // in [2^31, 2^32 + 2^31]
        guard ntpSeconds < 0x1_8000_0000 else {
            self.init(seconds: 0x7FFF_FFFF, fraction: .max)
            return
        }
        self.init(seconds: UInt32(truncatingIfNeeded: ntpSeconds), fraction: UInt32(truncatingIfNeeded: fraction))
    }

    /// The time as Unix time (seconds since 1970, fractional).
    ///
    /// Follows RFC 4330 §3: a timestamp with the top bit of ``seconds`` clear is in era 1
    /// (from 2036-02-07), so the range 1968–2104 maps one to one.
    @inlinable
    public var unixTime: Double {
        var whole = Double(seconds)
        if seconds & 0x8000_0000 == 0 { whole += 4_294_967_296 }
        return whole - Double(Self.unixEpochOffset) + Double(fraction) / 4_294_967_296
    }
}
