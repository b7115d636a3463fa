import PreflightCore
import PropertyBased
import Testing

@Suite struct NTPTimestampTests {
    @Test(
        arguments: [
            // Unix epoch: 70 years + 17 leap days after 1900 = 25567 days × 86400 s.
            (0.0, 2_208_988_800, 0),
            (1.5, 2_208_988_801, 0x8000_0000),
            (1_697_261_200.25, 3_906_250_000, 0x4000_0000),
            // 2036-02-07 06:28:16 UTC: the NTP seconds field wraps to era 1.
            (2_085_978_496.0, 0, 0),
            (2_085_978_496.75, 0, 0xC000_0000),
            (-1.0, 2_208_988_799, 0),
        ] as [(Double, UInt32, UInt32)])
    func convertsUnixTime(unix: Double, seconds: UInt32, fraction: UInt32) {
        let ntp = NTPTimestamp(unixTime: unix)
        #expect(ntp.seconds == seconds)
        #expect(ntp.fraction == fraction)
        #expect(NTPTimestamp(seconds: seconds, fraction: fraction).unixTime == unix)
    }

    @Test func unixEpochOffsetIsSeventyYears() {
        // 1900–1969 holds 17 leap years (1904 … 1968; 1900 is not one).
        #expect(Int(NTPTimestamp.unixEpochOffset) == (70 * 365 + 17) * 86_400)
    }

    @Test func middle32BitsIsSixteenDotSixteen() {
        let ntp = NTPTimestamp(seconds: 0x83AA_7E81, fraction: 0x8000_1234)
        #expect(ntp.middle32Bits == 0x7E81_8000)
    }

    @Test func clampsOutOfRangeAndNaN() {
        #expect(NTPTimestamp(unixTime: .nan) == NTPTimestamp(seconds: 0, fraction: 0))
        #expect(NTPTimestamp(unixTime: -.infinity) == NTPTimestamp(seconds: 0x8000_0000, fraction: 0))
        #expect(NTPTimestamp(unixTime: .infinity) == NTPTimestamp(seconds: 0x7FFF_FFFF, fraction: .max))
        #expect(NTPTimestamp(unixTime: 1e300) == NTPTimestamp(seconds: 0x7FFF_FFFF, fraction: .max))
        #expect(NTPTimestamp(unixTime: -1e300) == NTPTimestamp(seconds: 0x8000_0000, fraction: 0))
    }

    @Test func fractionRoundsWithoutOverflow() {
        // 2^-40 s below the next second is closer to it than to the largest fraction (2^-32 s steps),
        // so it rounds up into the seconds field rather than overflowing the fraction.
        let ntp = NTPTimestamp(unixTime: 10.0 - 0x1p-40)
        #expect(ntp == NTPTimestamp(seconds: 2_208_988_810, fraction: 0))
    }
}

@Suite struct NTPTimestampPropertyTests {
    /// NTP → Unix time → NTP keeps the seconds and loses at most what a Double cannot hold:
    /// near 2^32 s a Double resolves about 2^-20 s, i.e. 2^12 fraction units.
    @Test func unixTimeRoundTripKeepsSecondsAndNearlyAllOfTheFraction() async {
        await propertyCheck(count: 500, input: Gen.uint32(), Gen.uint32()) { seconds, fraction in
            let ntp = NTPTimestamp(seconds: seconds, fraction: fraction)
            let back = NTPTimestamp(unixTime: ntp.unixTime)
            let exact = UInt64(ntp.seconds) << 32 | UInt64(ntp.fraction)
            let again = UInt64(back.seconds) << 32 | UInt64(back.fraction)
            let difference = exact > again ? exact &- again : again &- exact
            #expect(difference <= 1 << 12 || difference >= UInt64.max - (1 << 12), "\(ntp) → \(back)")
        }
    }
}
