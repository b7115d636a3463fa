import Foundation
import PropertyBased
import PreflightModel
import Testing

/// `FixedDecimalFormat` against hand-derived `%f` strings and against C's own `%f`
/// (Foundation's `String(format:)`), used here only as an independent oracle.
@Suite struct FixedDecimalFormatTests {
    /// Expected strings worked out by hand from the exact binary values.
    static let vectors: [(Double, String)] = [
        (0.0, "0.000000"),
        (-0.0, "-0.000000"),
        (1.0, "1.000000"),
        (400.0, "400.000000"),
        (3.5, "3.500000"),
        (0.30559, "0.305590"),
        (-1.5, "-1.500000"),
        (-400.25, "-400.250000"),
        // Exact ties round half to even: 1/128 = 0.0078125 → 7812.5 millionths → 7812.
        (1.0 / 128, "0.007812"),
        // 3/128 = 0.0234375 → 23437.5 → 23438.
        (3.0 / 128, "0.023438"),
        (-1.0 / 128, "-0.007812"),
        // Not ties: 0.1234565 is stored as 0.12345649999999999…, 2.0000005 as 2.00000050000000014…
        (0.1234565, "0.123456"),
        (2.0000005, "2.000001"),
        // Rounding carries into the integer part.
        (0.9999996, "1.000000"),
        (-9.9999999, "-10.000000"),
        // Negative values that round to zero keep their sign, as printf does.
        (-0.0000001, "-0.000000"),
        (Double.leastNonzeroMagnitude, "0.000000"),
        (1e20, "100000000000000000000.000000"),
        // 2^80 = 1208925819614629174706176 (beyond 2^74: the big-integer path).
        (0x1p80, "1208925819614629174706176.000000"),
        (-0x1p80, "-1208925819614629174706176.000000"),
        (Double.infinity, "inf"),
        (-Double.infinity, "-inf"),
        (Double.nan, "nan"),
    ]

    @Test(arguments: vectors)
    func handVectors(value: Double, expected: String) {
        #expect(FixedDecimalFormat.sixDecimals(value) == expected)
    }

    @Test func largestDoubleMatchesPrintf() {
        for value in [Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 1e300, 0x1p127, 0x1p128] {
            #expect(FixedDecimalFormat.sixDecimals(value) == String(format: "%f", value))
        }
    }

    @Test func anyBitPatternMatchesPrintf() async {
        await propertyCheck(count: 500, input: Gen.uint64()) { bits in
            let value = Double(bitPattern: bits)
            guard value.isFinite else { return }
            #expect(FixedDecimalFormat.sixDecimals(value) == String(format: "%f", value))
        }
    }

    @Test func typicalMeasurementsMatchPrintf() async {
        // Values like the engine formats: ms, %, MOS, with up to nine decimals.
        await propertyCheck(count: 500, input: Gen.int64(in: -10_000_000_000_000...10_000_000_000_000)) { n in
            let value = Double(n) / 1_000_000_000
            #expect(FixedDecimalFormat.sixDecimals(value) == String(format: "%f", value))
        }
    }
}
