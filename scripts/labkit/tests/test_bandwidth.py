"""The bandwidth checks on canned results: each target can fail."""

import math
import unittest

from labkit import bandwidth as BW
from labkit.impair import DirectionSpec


def report(kbit, seconds=3.0, state="complete", at_least=False, loss=0.0, jitter=0.2, received=500, after=300):
    return {"availableBandwidth": kbit, "duration": seconds, "state": state, "atLeastExpected": at_least,
            "packetLossRate": loss, "jitter": jitter, "packetsReceived": received, "packetsAfterKnee": after}


IPERF = {"up": {"wire_kbit": 1004.0, "lost_percent": 20.0, "jitter_ms": 1.0},
         "down": {"wire_kbit": 1004.0, "lost_percent": 20.0, "jitter_ms": 1.0}}


def failed(checks):
    return sorted(c.metric for c in checks if not c.ok)


class BandwidthChecks(unittest.TestCase):
    sc = BW.BandwidthScenario("bw1m", "1 Mbit/s", 1000, 1000)

    def test_accurate_and_quick_passes(self):
        checks = BW.evaluate(self.sc, {"uplinkReport": report(990), "downlinkReport": report(1005)}, IPERF)
        self.assertEqual(failed(checks), [])

    def test_eleven_percent_high_fails(self):
        checks = BW.evaluate(self.sc, {"uplinkReport": report(1110), "downlinkReport": report(1000)}, IPERF)
        self.assertEqual(failed(checks), ["bandwidth up kbit/s", "error up vs iperf3 (pp)"])

    def test_an_incomplete_direction_fails_even_near_the_truth(self):
        checks = BW.evaluate(self.sc, {"uplinkReport": report(1000, state="incompleteNoBwe"), "downlinkReport": report(1000)}, IPERF)
        self.assertEqual(failed(checks), ["bandwidth up kbit/s"])

    def test_slow_directions_fail_alone_and_together(self):
        checks = BW.evaluate(self.sc, {"uplinkReport": report(1000, seconds=5.5), "downlinkReport": report(1000, seconds=4.9)}, IPERF)
        self.assertEqual(failed(checks), ["time both s", "time up s"])

    def test_loss_and_jitter_of_a_clean_path(self):
        checks = BW.evaluate(self.sc, {"uplinkReport": report(1000, loss=1.0, received=400, after=300),
                                       "downlinkReport": report(1000, jitter=1.5)}, IPERF)
        # One packet of 100 before the knee is the allowance on a path that loses none.
        self.assertEqual(failed(checks), ["jitter down ms"])
        checks = BW.evaluate(self.sc, {"uplinkReport": report(1000, loss=2.5, received=400, after=300),
                                       "downlinkReport": report(1000)}, IPERF)
        self.assertEqual(failed(checks), ["loss up %"])

    def test_at_least_expected_must_say_so_and_stay_under_the_shaper(self):
        sc = BW.BandwidthScenario("bw5m-expect1m", "", 5000, 5000, expected_up=1_000_000, expected_down=1_000_000)
        self.assertFalse(sc.saturates)
        good = BW.evaluate(sc, {"uplinkReport": report(1500, at_least=True), "downlinkReport": report(1500, at_least=True)}, IPERF)
        self.assertEqual(failed(good), [])
        invented = BW.evaluate(sc, {"uplinkReport": report(4990), "downlinkReport": report(900, at_least=True)}, IPERF)
        self.assertEqual(failed(invented), ["at least expected down", "at least expected up"])

    def test_configured_loss_bound_is_four_sigma(self):
        self.assertAlmostEqual(BW.loss_bound_pp(0.01, 156), 400 * math.sqrt(0.01 * 0.99 / 156), places=6)
        self.assertAlmostEqual(BW.loss_bound_pp(0.0, 50), 2.0)

    def test_scenarios_cover_the_issue(self):
        names = {s.name for s in BW.bandwidth_scenarios()}
        self.assertEqual(len(names), 8)
        bucket = next(s for s in BW.bandwidth_scenarios() if s.name == "bw2m-bucket64k")
        self.assertEqual(bucket.burst_for(2000), 65536)
        self.assertEqual(BW.sane_burst(5000), 6250)
        lossy = next(s for s in BW.bandwidth_scenarios() if s.name == "bw2m-rtt40-loss1")
        self.assertEqual(lossy.impairment, DirectionSpec(delay=20, loss=0.01))


if __name__ == "__main__":
    unittest.main()
