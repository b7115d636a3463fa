"""`lab diagnose`: Telnyx's pre-call diagnosis through the lab (40 ms RTT, 2 % loss each way),
beside a preflight test on the same impairment. Both run in the client namespace against
`preflight serve` in the edge namespace, each with its own captures; each one's RTT, jitter and
loss are checked against its own packets' ground truth with the accuracy benchmark's targets,
the diagnosis's in seconds as Telnyx reports them (docs/lab.md)."""

from __future__ import annotations

import json
import math
import secrets
import sys
import time
from pathlib import Path

from labkit import truth as T
from labkit.bench import APP, JITTER_FLOOR_MS, preflight_binary
from labkit.call import DIAL_APP, mint, serve
from labkit.impair import DirectionSpec
from labkit.lab import CLIENT_IP, EDGE_IP, Lab, LabError
from labkit.pcap import read_udp

TEST_NUMBER = "+18005551234"  # the route `preflight serve` has when given none (LocalEdge.testNumber)


def flow(captures: dict) -> T.FlowTruth:
    client, edge = read_udp(captures["client"]), read_udp(captures["edge"])
    up = T.direction_truth(T.select(client, CLIENT_IP, EDGE_IP, T.is_audio_rtp), T.select(edge, CLIENT_IP, EDGE_IP, T.is_audio_rtp))
    down = T.direction_truth(T.select(edge, EDGE_IP, CLIENT_IP, T.is_audio_rtp), T.select(client, EDGE_IP, CLIENT_IP, T.is_audio_rtp))
    return T.FlowTruth(up, down)


def combined_loss(truth: T.FlowTruth) -> float:
    """Both directions' lost packets over both directions' sent ones, percent: the diagnosis's
    `packetLossPercent` definition."""
    sent = truth.up.sent + truth.down.sent
    lost = truth.up.sent * truth.up.loss_percent / 100 + truth.down.sent * truth.down.loss_percent / 100
    return 100 * lost / sent if sent else math.nan


def check(rows: list, name: str, metric: str, truth: float, got: float, tolerance: float) -> None:
    rows.append((name, metric, truth, got, tolerance, abs(got - truth) <= tolerance))


def rtt_tolerance(truth: float) -> float:
    """The accuracy benchmark's RTT target."""
    return max(1.0, 0.03 * truth)


def jitter_tolerance(truth: float) -> float:
    """The accuracy benchmark's jitter target."""
    return max(JITTER_FLOOR_MS, 0.1 * truth)


def preflight_test(lab: Lab, binary: Path, url: str, token: str, duration: int, out: Path, name: str) -> tuple[dict, T.FlowTruth]:
    """A preflight test (`preflight run --json`) from the client namespace with its own captures:
    its report and its packets' ground truth."""
    lab.start_captures(name)
    test = lab.run_on("client", [str(binary), "run", "--edge-url", url, "--token", token, "--duration", str(duration), "--json"],
                      timeout=duration + 60)
    time.sleep(0.5)
    truth = flow(lab.stop_captures())
    (out / "preflight.json").write_text(test.stdout)
    if test.returncode != 0:
        raise LabError(f"the preflight test failed: {test.stderr.strip().splitlines()[-1:]}")
    return json.loads(test.stdout), truth


def check_test(rows: list, report: dict, truth: T.FlowTruth) -> None:
    """The preflight test's RTT and per-direction loss against its truth."""
    check(rows, "preflight test", "rtt ms", truth.rtt_ms, report["networkStats"]["rtt"]["average"], rtt_tolerance(truth.rtt_ms))
    check(rows, "preflight test", "loss up %", truth.up.loss_percent, report["uplink"]["packetsLostFraction"], 0.5)
    check(rows, "preflight test", "loss down %", truth.down.loss_percent, report["downlink"]["packetsLostFraction"], 0.5)


def main(duration: int = 10, out: Path | None = None) -> int:
    repo = Path(__file__).resolve().parents[2]
    binary = preflight_binary(repo)
    out = out or repo / ".build" / "lab-diagnose" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    up, down = DirectionSpec(delay=20, loss=0.02), DirectionSpec(delay=20, loss=0.02)
    rows: list = []
    try:
        with Lab(workdir=str(out)) as lab:
            lab.impair(up, down, seed=1)
            url = serve(lab, binary, secret, out)

            def token(application: str, *extra: str) -> str:
                return mint(binary, secret, "lab", application, *extra)

            report, test_truth = preflight_test(lab, binary, url, token(APP), duration, out, "diagnose-test")
            lab.start_captures("diagnose-call")
            diagnosis_run = lab.run_on("client", [str(binary), "diagnose", "--edge-url", url, "--token", token(DIAL_APP, "--incoming"),
                                                  "--number", TEST_NUMBER, "--duration", str(duration), "--json"], timeout=duration + 60)
            time.sleep(0.5)
            call_truth = flow(lab.stop_captures())
            (out / "diagnosis.json").write_text(diagnosis_run.stdout)
            (out / "diagnosis.log").write_text(diagnosis_run.stderr)
            if diagnosis_run.returncode != 0:
                raise LabError(f"the diagnosis failed: {diagnosis_run.stderr.strip().splitlines()[-1:]}")
    except LabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    diagnosis = json.loads(diagnosis_run.stdout)["diagnosis"]
    stats = report["networkStats"]
    check_test(rows, report, test_truth)
    worse = max(call_truth.up.mean_jitter_ms, call_truth.down.mean_jitter_ms)
    check(rows, "diagnosis", "rtt ms (rtt.avg s × 1000)", call_truth.rtt_ms, diagnosis["rtt"]["avg"] * 1000, rtt_tolerance(call_truth.rtt_ms))
    check(rows, "diagnosis", "jitter ms (jitter.avg s × 1000)", worse, diagnosis["jitter"]["avg"] * 1000, jitter_tolerance(worse) + 0.3)
    check(rows, "diagnosis", "loss % (both ways)", combined_loss(call_truth), diagnosis["packetLossPercent"], 0.5)
    units = diagnosis["rtt"]["avg"] < 1 and diagnosis["jitter"]["avg"] < 1 and stats["rtt"]["average"] > 1
    print(f"40 ms RTT, 2 % loss each way, {duration} s each; the test's truth {test_truth.up.sent} packets up, "
          f"the diagnosis call's {call_truth.up.sent}")
    print(f"preflight test: rtt {stats['rtt']['average']:.2f} ms, jitter {stats['jitter']['average']:.2f} ms, "
          f"mos {stats['mos']['average']:.2f}, callQuality {report.get('callQuality')}")
    print(f"diagnosis: rtt {diagnosis['rtt']['avg']:.4f} s, jitter {diagnosis['jitter']['avg']:.5f} s, mos {diagnosis['mos']:.2f} "
          f"({diagnosis['quality']}), loss {diagnosis['packetLossPercent']:.2f} % ({diagnosis.get('packetLossRating')}), "
          f"{diagnosis['packetsSent']} packets sent")
    print("| run | metric | ground truth | measured | target | |")
    print("|---|---|---|---|---|---|")
    for name, metric, truth, got, tolerance, ok in rows:
        print(f"| {name} | {metric} | {truth:.2f} | {got:.2f} | ±{tolerance:.2f} | {'ok' if ok else 'FAIL'} |")
    print(f"units: the test's RTT in ms, the diagnosis's in s: {'ok' if units else 'FAIL'}")
    failed = [r for r in rows if not r[5]] + ([] if units else ["units"])
    return 1 if failed else 0
