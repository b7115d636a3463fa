/// Formats numbers the way C's `printf("%f", x)` does, without Foundation.
///
/// The reference report writes warning records' `values` and `threshold` (`"0.305590"`,
/// `"1.000000"`) and stats samples' `timestamp` (`"1731699140337.642090"`) as `"%f"` strings: six decimals, no exponent, the exact binary value rounded
/// half-to-even (as glibc and Apple's libc do), `"-"` kept on negative values that round to zero,
/// and `"inf"`, `"-inf"`, `"nan"` for non-finite values. Package access: PreflightCore's warnings
/// engine writes its records with it too.
package enum FixedDecimalFormat {
    /// 10^6: the scale of the six decimals.
    private static let scale: UInt128 = 1_000_000

    /// `x` written with exactly six decimals, as `String(format: "%f", x)` would.
    package static func sixDecimals(_ x: Double) -> String {
        if x.isNaN { return x.sign == .minus ? "-nan" : "nan" }
        if x.isInfinite { return x.sign == .minus ? "-inf" : "inf" }
        let sign = x.sign == .minus ? "-" : ""
        // x = m * 2^e exactly, with m < 2^53.
        let m: UInt64
        let e: Int
        if x.exponentBitPattern == 0 {
            m = x.significandBitPattern
            e = -1074
        } else {
            m = (1 << 52) | x.significandBitPattern
            e = Int(x.exponentBitPattern) - 1075
        }
        if e >= 0 {
            // An integer; m * 2^e fits in UInt128 while e <= 74 (m < 2^53).
            if e <= 74 {
                return sign + String(UInt128(m) << UInt128(e)) + ".000000"
            }
            return sign + bigIntegerDecimal(m: m, shift: e) + ".000000"
        }
        let k = -e
        // m * 10^6 < 2^73: for k >= 75 the value times 10^6 is below 1/4 and rounds to zero.
        var q: UInt128 = 0
        if k < 75 {
            let n = UInt128(m) * scale
            q = n >> UInt128(k)
            let r = n & ((1 << UInt128(k)) - 1)
            let half: UInt128 = 1 << UInt128(k - 1)
            if r > half || (r == half && q & 1 == 1) {
                q += 1
            }
        }
        let integerPart = q / scale
        let fraction = String(q % scale)
        let padding = String(repeating: "0", count: 6 - fraction.count)
        return sign + String(integerPart) + "." + padding + fraction
    }

    /// The decimal digits of `m * 2^shift`, for values beyond UInt128 (up to about 1.8e308).
    private static func bigIntegerDecimal(m: UInt64, shift: Int) -> String {
        // Little-endian limbs in base 10^9.
        let base: UInt64 = 1_000_000_000
        var limbs: [UInt64] = []
        var value = m
        while value > 0 {
            limbs.append(value % base)
            value /= base
        }
        var remaining = shift
        while remaining > 0 {
            // Multiply by up to 2^30 at a time: limb (< 10^9 < 2^30) times 2^30 plus carry fits in 64 bits.
            let step = min(remaining, 30)
            remaining -= step
            var carry: UInt64 = 0
            for i in limbs.indices {
                let product = (limbs[i] << UInt64(step)) + carry
                limbs[i] = product % base
                carry = product / base
            }
            while carry > 0 {
                limbs.append(carry % base)
                carry /= base
            }
        }
        guard let last = limbs.last else { return "0" }
        var text = String(last)
        for limb in limbs.dropLast().reversed() {
            let digits = String(limb)
            text += String(repeating: "0", count: 9 - digits.count) + digits
        }
        return text
    }
}
