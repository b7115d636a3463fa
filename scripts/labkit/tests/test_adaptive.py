"""The adaptive column's summary: `python3 -m unittest discover -s scripts -p 'test_*.py'`."""

import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path

from labkit import adaptive


def report(quality: int, warnings=(), settled_after=None, settled_quality=None, settled_warnings=(), mos=4.3,
           unsettled=None, probes=None) -> dict:
    """A preflight report as `preflight run --json` prints it, with an adaptive settlement."""
    r = {"callQuality": quality, "networkStats": {"mos": {"average": mos}},
         "warnings": [{"name": w, "threshold": "x", "values": "y", "timestamp": 1} for w in warnings]}
    settlement = {"settled": settled_after is not None, "afterSeconds": settled_after or 30, "maximumSeconds": 30,
                  "warningsRaised": list(settled_warnings), "reason": "why"}
    if settled_after is not None:
        settlement["callQuality"] = quality if settled_quality is None else settled_quality
        settlement["continuedToSeconds"] = 30
    if probes is not None:
        settlement["lossProbes"], settlement["lossProbesLost"] = probes
    if unsettled:
        settlement["unsettled"] = {"bands": [0, 1], "warnings": [], "summary": unsettled}
    r["verdictSettlement"] = settlement
    return r


class RowTests(unittest.TestCase):
    def test_a_settled_verdict_is_compared_with_its_own_run_and_the_independent_run_beside_it(self):
        own = report(0, settled_after=3)
        r = adaptive.row_of("clean", 1, own, report(1, mos=4.15))
        self.assertTrue(r["settled"])
        self.assertEqual(r["seconds"], 3)
        self.assertIs(r["same_run_equal"], True)
        self.assertIs(r["independent_equal"], False)
        self.assertIsNone(r["sits_on"])

    def test_warnings_count_in_the_verdict(self):
        own = report(2, warnings=["high-packets-lost-fraction"], settled_after=9, settled_warnings=[])
        r = adaptive.row_of("loss3-rtt200", 1, own, None)
        self.assertIs(r["same_run_equal"], False)
        self.assertIsNone(r["independent_equal"])
        self.assertEqual(r["sits_on"], adaptive.SITS_ON["loss3-rtt200"])

    def test_an_unsettled_run_has_no_settled_verdict_and_keeps_its_plain_words(self):
        r = adaptive.row_of("edge42", 2, report(0, unsettled="mean MOS 4.21 ± 0.03: between excellent and great"), None)
        self.assertFalse(r["settled"])
        self.assertIsNone(r["seconds"])
        self.assertIsNone(r["same_run_equal"])
        self.assertEqual(r["unsettled"], "mean MOS 4.21 ± 0.03: between excellent and great")


class ReportTests(unittest.TestCase):
    def summary(self, rows: list[dict]) -> tuple[int, str, Path]:
        out = Path(tempfile.mkdtemp())
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            status = adaptive.report(rows, out)
        return status, printed.getvalue(), out

    def test_medians_are_over_the_unplaced_scenarios_and_the_placed_ones_are_reported_apart(self):
        rows = [adaptive.row_of("clean", 1, report(0, settled_after=2, probes=(74, 0)), None),
                adaptive.row_of("rtt40", 1, report(0, settled_after=3, probes=(100, 2)), None),
                adaptive.row_of("rtt120-j15", 1, report(0, settled_after=4), None),
                adaptive.row_of("edge42", 1, report(0, unsettled="mean MOS 4.21 ± 0.03: between excellent and great"), None),
                adaptive.row_of("edge42", 2, report(1, settled_after=20), None)]
        status, text, out = self.summary(rows)
        self.assertEqual(status, 0)
        self.assertIn("(3 runs): median time to settle 3.0 s; clean path 2 s at most (1 runs); settled 3/3; "
                      "settled verdict equal to its run's in 3/3", text)
        self.assertIn("Targets: every settled verdict equal to its run's: met; median <= 3 s: met; "
                      "clean path <= 2 s every seed: met.", text)
        self.assertIn("Loss probes (the first 2 s): decided per run 74-100 (median 87), lost 2 of 174 in all.", text)
        self.assertIn("| edge42 | the 4.2 band edge, on purpose | 2 | 20 / 20 / 20 (min/median/max) | 50 % | 1/1 |", text)
        self.assertIn("UNSETTLED edge42 seed 1: mean MOS 4.21 ± 0.03: between excellent and great", text)
        self.assertEqual(len(json.loads((out / "adaptive.json").read_text())), 5)

    def test_an_unplaced_settled_verdict_that_differs_from_its_run_fails(self):
        wrong = adaptive.row_of("rtt40", 1, report(1, settled_after=4, settled_quality=0), None)
        status, text, _ = self.summary([adaptive.row_of("clean", 1, report(0, settled_after=2), None), wrong])
        self.assertEqual(status, 1)
        self.assertIn("FAIL rtt40 seed 1: settled at 4 s on excellent no warnings, the same run at 30 s says great (4.30)", text)

    def test_placed_runs_fail_only_below_the_rules_rate_over_enough_runs(self):
        def placed(n: int, wrong: int) -> list[dict]:
            return [adaptive.row_of("loss2", i, report(1, settled_after=12, settled_quality=0 if i < wrong else 1), None)
                    for i in range(n)]
        self.assertEqual(self.summary(placed(5, 1))[0], 0)  # too few runs to judge a rate
        status, text, _ = self.summary(placed(20, 2))
        self.assertEqual(status, 1)
        self.assertIn("Placed: settled verdict equal to its run's in 18/20 settled runs (90 %", text)
        self.assertEqual(self.summary(placed(20, 1))[0], 0)


if __name__ == "__main__":
    unittest.main()
