"""The pure parts of `lab path`: the truth from the delayer's log, mtr's naive reading, one run's
row and the targets over all runs."""

import unittest

from labkit.path_rows import Scenario, judge, mtr_worst, table, targets, truth_from_log


def diagnosis(blames=(), suspects=(), probes=27, packets=990, notes=None):
    hops = [{"ttl": t, "address": a, "lossPercent": 0, "jitter": 0.1} for t, a in
            [(1, "198.18.40.1"), (2, "198.18.41.1"), (3, "198.18.42.2"), (4, "198.18.43.2")]]
    for ttl, note in (notes or {}).items():
        hops[ttl - 1]["note"] = note
    return {"pathDiagnosis": {"blames": list(blames), "suspects": list(suspects), "probesSent": probes, "testPackets": packets,
                              "hops": hops, "summary": "words"}}


class PathRowTests(unittest.TestCase):
    def test_truth_counts_only_the_media_each_way(self):
        log = "\n".join(["direction,arrival_ns,release_ns,action,udp_len,hash",
                         "up,1,2,pass,188,a", "up,1,,drop,188,b", "up,1,2,pass,20,c", "up,1,,drop,20,d",
                         "down,1,2,pass,216,e", "down,1,2,pass,216,f", "down,1,2,pass,0,", "bogus"])
        truth = truth_from_log(log)
        self.assertEqual(truth["up_loss"], 0.5)
        self.assertEqual(truth["down_loss"], 0.0)
        self.assertEqual(truth["packets"], {"up": 2, "down": 2})

    def test_mtr_worst_is_the_first_hop_with_the_most_loss(self):
        report = {"report": {"hubs": [{"host": "198.18.40.1", "Loss%": 40.0}, {"host": "198.18.41.1", "Loss%": 80.0},
                                      {"host": "???", "Loss%": 80.0}, {"host": "198.18.43.2", "Loss%": 0.0}]}}
        worst = mtr_worst(report)
        self.assertEqual((worst["hop"], worst["host"], worst["segment"]), (2, "198.18.41.1", "access-network"))
        self.assertIsNone(mtr_worst({}))

    def test_a_right_blame_a_suspect_and_a_false_blame(self):
        wifi = Scenario("wifi-loss-5", link=1, spec={"loss": 0.05})
        blamed = judge(wifi, diagnosis(blames=[{"problem": "loss", "segment": "local-network", "value": 5.0, "confidence": 0.97}]),
                       {"up_loss": 0.05, "down_loss": 0.046}, None)
        self.assertTrue(blamed["correct"] and blamed["named"])
        self.assertEqual(blamed["false_blames"], 0)
        self.assertAlmostEqual(blamed["loss_error_pp"], 0.0)
        suspected = judge(wifi, diagnosis(suspects=[{"problem": "loss", "segment": "local-network", "value": 4.0, "confidence": 0.7}]),
                          {"up_loss": 0.05, "down_loss": 0.0}, None)
        self.assertFalse(suspected["correct"])
        self.assertTrue(suspected["named"])
        self.assertAlmostEqual(suspected["loss_error_pp"], 1.0)
        wrong = judge(wifi, diagnosis(blames=[{"problem": "loss", "segment": "access-network", "value": 5.0, "confidence": 0.96}]), None, None)
        self.assertFalse(wrong["named"])
        self.assertEqual(wrong["false_blames"], 1)
        clean = judge(Scenario("ratelimit", rate_limited="isp1"),
                      diagnosis(blames=[{"problem": "jitter", "segment": "access-network", "value": 6, "confidence": 1}]), None,
                      {"hop": 2, "host": "198.18.41.1", "loss": 80.0, "segment": "access-network"})
        self.assertEqual(clean["false_blames"], 1)
        self.assertTrue(clean["mtr_blames_rate_limiter"])

    def test_targets_and_table(self):
        wifi = Scenario("wifi-loss-5", link=1, spec={"loss": 0.05})
        good = judge(wifi, diagnosis(blames=[{"problem": "loss", "segment": "local-network", "value": 5.0, "confidence": 0.97}]),
                     {"up_loss": 0.05, "down_loss": 0.05}, {"hop": 1, "host": "???", "loss": 100.0, "segment": "local-network"})
        clean = judge(Scenario("clean"), diagnosis(), None, {"hop": 1, "host": "198.18.40.1", "loss": 40.0, "segment": "local-network"})
        for row in (good, clean):
            row.update(seed=1, test_exit=0)
        ok, lines = targets([good, clean])
        self.assertTrue(ok, lines)
        self.assertIn("named in 1 of 1 runs (100 %", lines[0])
        over = dict(clean, share=6.0)
        ok, lines = targets([good, over])
        self.assertFalse(ok)
        self.assertTrue(any(line.startswith("  MISS probes at most 6.0 %") for line in lines))
        # Calibration: a 0.97 blame that was right, a 0.7 suspect that was wrong.
        miss = judge(wifi, diagnosis(suspects=[{"problem": "loss", "segment": "access-network", "value": 5.0, "confidence": 0.7}]), None, None)
        calibration = [line for line in targets([good, miss, clean])[1] if "calibration" in line]
        self.assertEqual(len(calibration), 1)
        self.assertIn("60–80 %: 0 of 1 right (stated 70 % on average)", calibration[0])
        self.assertIn("95–100 %: 1 of 1 right (stated 97 % on average)", calibration[0])
        text = table([good, clean])
        self.assertIn("| wifi-loss-5 | 1 | loss@local-network | loss@local-network | - | 5.0 / 5.0 | 27 (2.7 %) | hop 1 ??? 100 % (local-network) |", text)


if __name__ == "__main__":
    unittest.main()
