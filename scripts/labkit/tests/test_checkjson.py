"""labkit.checkjson against a result `preflight check --json` wrote through the lab, and that
result spoilt one way at a time: each spoiling must be caught."""

import copy
import json
import unittest
from pathlib import Path

from labkit.checkjson import problems

GOOD = json.loads((Path(__file__).parent / "connectivity-check.json").read_text())


class CheckJSONTests(unittest.TestCase):
    def test_a_real_result_reads_as_100ms(self):
        self.assertEqual(problems(GOOD), [])

    def spoilt(self, change) -> list:
        result = copy.deepcopy(GOOD)
        change(result)
        return problems(result)

    def test_each_spoiling_is_caught(self):
        media = "mediaServerReport"
        cases = {
            "the corrected spelling": lambda d: d[media].update(isSubscribeICEConnected=d[media].pop("isSubcribeICEConnected")),
            "seconds for the timestamp": lambda d: d.update(testTimestamp=d["testTimestamp"] // 1000),
            "bps for kbps": lambda d: d[media]["stats"]["video"].update(bitrateSent=d[media]["stats"]["video"]["bitrateSent"] * 1000),
            "a state of another SDK": lambda d: d.update(state="COMPLETED"),
            "a score past 5": lambda d: d[media].update(connectionQualityScore=7),
            "a count as text": lambda d: d[media]["stats"]["audio"].update(packetsLost="3"),
            "a missing stat": lambda d: d[media]["stats"]["audio"].pop("roundTripTime"),
            "an error without a code": lambda d: d.update(errors=[{"message": "x"}]),
        }
        for name, change in cases.items():
            with self.subTest(name):
                self.assertNotEqual(self.spoilt(change), [], name)


if __name__ == "__main__":
    unittest.main()
