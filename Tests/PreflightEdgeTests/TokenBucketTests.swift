@testable import PreflightEdge
import Testing

@Suite struct TokenBucketTests {
    @Test func burstThenSustainedRate() {
        var bucket = TokenBucket(rate: 50, burst: 10)
        // A burst of 10 at t = 0, then nothing.
        var burst = 0
        for _ in 0..<10 where bucket.allow(at: 0) { burst += 1 }
        #expect(burst == 10)
        let result1 = bucket.allow(at: 0)
        #expect(!result1)
        // 20 ms later one token has come back (50/s).
        let result2 = bucket.allow(at: 0.02)
        #expect(result2)
        let result3 = bucket.allow(at: 0.02)
        #expect(!result3)
        // Over 1 s at 100 attempts/s, about 50 pass.
        var passed = 0
        for step in 1...100 where bucket.allow(at: 0.02 + Double(step) * 0.01) { passed += 1 }
        #expect(passed == 50)
    }

    @Test func refillIsCappedAtTheBurst() {
        var bucket = TokenBucket(rate: 1000, burst: 3)
        _ = bucket.allow(at: 0)
        // An hour idle refills to 3, not more.
        var refilled = 0
        for _ in 0..<3 where bucket.allow(at: 3600) { refilled += 1 }
        #expect(refilled == 3)
        let result4 = bucket.allow(at: 3600)
        #expect(!result4)
    }

    @Test func timeGoingBackwardsOrNonFiniteGrantsNothingExtra() {
        var bucket = TokenBucket(rate: 10, burst: 1)
        let result5 = bucket.allow(at: 5)
        #expect(result5)
        let result6 = bucket.allow(at: 4)
        #expect(!result6)
        let result7 = bucket.allow(at: .nan)
        #expect(!result7)
        let result8 = bucket.allow(at: .infinity)
        #expect(!result8)
        let result9 = bucket.allow(at: 5.1)
        #expect(result9)
    }

    @Test func degenerateParameters() {
        var none = TokenBucket(rate: 0, burst: 1)
        let result10 = none.allow(at: 0)
        #expect(result10)  // the initial token
        let result11 = none.allow(at: 1000)
        #expect(!result11)
        var nan = TokenBucket(rate: .nan, burst: .nan)
        #expect(nan.burst == 1 && nan.rate == 0)
        let result12 = nan.allow(at: 0)
        #expect(result12)
        let result13 = nan.allow(at: 1)
        #expect(!result13)
    }

    @Test func senderAtExactlyTheRatePasses() {
        // 20 ms audio frames against a 50/s limit with no burst headroom, for 10 s.
        var bucket = TokenBucket(rate: 50, burst: 1)
        var passed = 0
        for frame in 0..<500 where bucket.allow(at: Double(frame) * 0.02) { passed += 1 }
        #expect(passed == 500)
    }
}
