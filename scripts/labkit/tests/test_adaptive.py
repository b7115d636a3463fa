"""The adaptive column's summary: `python3 -m unittest discover -s scripts -p 'test_*.py'`."""

import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path

from labkit import adaptive


def row(scenario: str, seconds: float, settled: bool, mos: float = 4.3, warnings=None) -> dict:
    verdict = {"quality": "excellent", "mos": mos, "warnings": warnings or []}
    return {"scenario": scenario, "seed": 1, "seconds": seconds, "settled": settled, "adaptive": verdict,
            "fixed": verdict, "strict": True, "agree": True, "reason": "x", "fixed_loss": 0.0,
            "fixed_rtt": 40.0, "on_edge": False}


class ReportTests(unittest.TestCase):
    def summary(self, rows: list[dict]) -> tuple[int, str, Path]:
        out = Path(tempfile.mkdtemp())
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            status = adaptive.report(rows, out)
        return status, printed.getvalue(), out

    def test_the_median_is_given_for_the_whole_matrix_and_split_by_where_scenarios_come_from(self):
        rows = [row("clean", 3, True), row("rtt40", 4, True), row("loss2", 30, False),
                row("edge42", 30, False), row("rtt400", 3, True), row("edge37", 12, True)]
        status, text, out = self.summary(rows)
        self.assertEqual(status, 0)
        self.assertIn("Median time 8.0 s over 6 runs", text)
        self.assertIn("Median over the quick matrix's scenarios: 4.0 s (3 runs)", text)
        self.assertIn("Median over the scenarios placed on an edge: 12.0 s (3 runs)", text)
        self.assertIn("edge42 (30 s)", text)
        self.assertEqual(len(json.loads((out / "adaptive.json").read_text())), 6)

    def test_a_settled_verdict_that_differs_fails_and_one_at_the_maximum_is_shown(self):
        wrong = row("rtt40", 4, True)
        wrong["fixed"] = {"quality": "great", "mos": 4.0, "warnings": ["high-rtt"]}
        wrong["strict"] = wrong["agree"] = False
        spread = row("loss2", 30, False)
        spread["strict"] = spread["agree"] = False
        status, text, _ = self.summary([row("clean", 3, True), wrong, spread])
        self.assertEqual(status, 1)
        self.assertIn("FAIL rtt40 seed 1: settled at 4 s", text)
        self.assertIn("DIFF loss2 seed 1", text)
        self.assertNotIn("Median over", text)  # one source only: no split to show


if __name__ == "__main__":
    unittest.main()
