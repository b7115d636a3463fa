"""`lab check`: 100ms's connectivity check through the lab (40 ms RTT, 2 % loss each way), beside
a preflight test on the same impairment. Both run in the client namespace against `preflight
serve` in the edge namespace, each with its own captures; each one's RTT, jitter and loss are
checked against its own packets' ground truth with the accuracy benchmark's targets, and the
check's JSON is read by `labkit.checkjson` (docs/lab.md)."""

from __future__ import annotations

import json
import secrets
import sys
import time
from pathlib import Path

from labkit import checkjson
from labkit.bench import APP, preflight_binary
from labkit.call import mint, serve
from labkit.diagnosis import attempts, captured_run, check, check_test, flow, jitter_tolerance, preflight_test, rtt_tolerance
from labkit.impair import DirectionSpec
from labkit.lab import Lab, LabError


def main(duration: int = 20, out: Path | None = None) -> int:
    repo = Path(__file__).resolve().parents[2]
    binary = preflight_binary(repo)
    out = out or repo / ".build" / "lab-check" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    up, down = DirectionSpec(delay=20, loss=0.02), DirectionSpec(delay=20, loss=0.02)
    rows: list = []
    try:
        with Lab(workdir=str(out)) as lab:
            lab.impair(up, down, seed=1)
            url = serve(lab, binary, secret, out)
            token = mint(binary, secret, "lab", APP)
            report, test_truth = attempts("preflight test", lambda attempt: preflight_test(
                lab, binary, url, token, duration, out, f"check-test-{attempt}"))

            def connectivity_check(attempt: int):
                # The audio published (client → edge) and received back (edge → client): the check's ground truth.
                return captured_run(lab, out, f"check-{attempt}", [
                    str(binary), "check", "--edge-url", url, "--token", token, "--duration", str(duration), "--json"],
                    duration + 60, "the connectivity check")

            run, check_truth = attempts("connectivity check", connectivity_check)
    except LabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    result = json.loads(run.stdout)
    stats = report["networkStats"]
    audio = result["mediaServerReport"]["stats"]["audio"]
    video = result["mediaServerReport"]["stats"]["video"]
    check_test(rows, report, test_truth)
    check(rows, "connectivity check", "rtt ms (RTCP, publish)", check_truth.rtt_ms, audio["roundTripTime"], rtt_tolerance(check_truth.rtt_ms) + 0.5)
    up_loss = 100 * audio["packetsLost"] / audio["packetsSent"] if audio["packetsSent"] else float("nan")
    check(rows, "connectivity check", "audio loss up % (packetsLost)", check_truth.up.loss_percent, up_loss, 0.5)
    forwarded = audio["packetsReceived"] + audio["packetsLostDownlink"]
    down_loss = 100 * audio["packetsLostDownlink"] / forwarded if forwarded else float("nan")
    check(rows, "connectivity check", "audio loss down %", check_truth.down.loss_percent, down_loss, 0.5)
    check(rows, "connectivity check", "audio jitter down ms", check_truth.down.mean_jitter_ms, audio["jitter"],
          jitter_tolerance(check_truth.down.mean_jitter_ms) + 0.3)
    problems = checkjson.problems(result)
    units = 1.5e12 < result["testTimestamp"] < 4e12 and 10 < audio["roundTripTime"] < 1000 and 300 < video["bitrateSent"] < 800
    print(f"40 ms RTT, 2 % loss each way, {duration} s each; the test's truth {test_truth.up.sent} packets up, "
          f"the check's {check_truth.up.sent} audio packets up")
    print(f"preflight test: rtt {stats['rtt']['average']:.2f} ms, jitter {stats['jitter']['average']:.2f} ms, "
          f"loss up {report['uplink']['packetsLostFraction']:.2f} %, down {report['downlink']['packetsLostFraction']:.2f} %, "
          f"mos {stats['mos']['average']:.2f}")
    for name, s in (("audio", audio), ("video", video)):
        print(f"connectivity check {name}: sent {s['packetsSent']} ({s['bitrateSent']:.1f} kbps), received {s['packetsReceived']} "
              f"({s['bitrateReceived']:.1f} kbps), lost up {s['packetsLost']}, down {s['packetsLostDownlink']}, "
              f"rtt {s['roundTripTime']:.2f} ms, jitter {s['jitter']:.2f} ms")
    print(f"connectivity check: state {result['state']}, connectionQualityScore {result['mediaServerReport']['connectionQualityScore']:.2f}")
    print("| run | metric | ground truth | measured | target | |")
    print("|---|---|---|---|---|---|")
    for name, metric, truth, got, tolerance, ok in rows:
        print(f"| {name} | {metric} | {truth:.2f} | {got:.2f} | ±{tolerance:.2f} | {'ok' if ok else 'FAIL'} |")
    print(f"the check's JSON read by labkit.checkjson: {'ok' if not problems else '; '.join(problems)}")
    print(f"units: testTimestamp ms, roundTripTime ms, bitrates kbps: {'ok' if units else 'FAIL'}")
    failed = [r for r in rows if not r[5]] + problems + ([] if units else ["units"]) + ([] if result["state"] == "completed" else ["state"])
    return 1 if failed else 0
