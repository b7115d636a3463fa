"""`lab call`: a call between two clients through the lab. The caller (`preflight call`) runs in
the client namespace behind the impaired router, the callee (`preflight listen --answer auto`)
on the edge side, the edge (`preflight serve`) in the edge namespace bridges them. The caller's
per-direction figures (its leg to the edge: RTCP RTT, the edge's RTCP view of the uplink, its own
view of the downlink) are checked against the captures' ground truth with the accuracy
benchmark's targets (docs/lab.md)."""

from __future__ import annotations

import json
import math
import secrets
import subprocess
import sys
import time
from pathlib import Path

from labkit import truth as T
from labkit.bench import (ACCOUNT, API_KEY, JITTER_FLOOR_MS, Check, fmt, loss_bound, preflight_binary,
                          statistical_bound)
from labkit.impair import DirectionSpec
from labkit.lab import CLIENT_IP, EDGE_IP, Lab, LabError
from labkit.pcap import read_udp

DIAL_APP = "AP0000000000000000000000000000dial"  # the local edge's dial application (LocalEdge)


def call_metrics(outcome: dict) -> dict:
    """The caller's figures from its per-second samples: mean RTT (seconds with one), mean jitter
    per direction, and each direction's loss over the whole call (the last cumulative counts)."""
    samples = outcome.get("samples") or []
    rtts = [s["rtt"] for s in samples if s.get("rtt")]
    ups = [s["uplink"] for s in samples if s.get("uplink")]
    downs = [s["downlink"] for s in samples if s.get("downlink")]

    def mean(values):
        return sum(values) / len(values) if values else math.nan

    def loss(direction):
        last = direction[-1] if direction else None
        return 100 * last["packetsLost"] / last["packetsExpected"] if last and last["packetsExpected"] else math.nan

    return {"rtt": mean(rtts), "jitter_up": mean([u["jitter"] for u in ups]), "jitter_down": mean([d["jitter"] for d in downs]),
            "loss_up": loss(ups), "loss_down": loss(downs)}


def windowed_truth(client: list, edge_side: list, outcome: dict) -> T.FlowTruth:
    """The truth of the packets the caller's last sample covers. A call's media runs on after its
    last sample (until both parties have hung up), unlike a preflight test's, which drains
    first: so the downlink counts the packets the edge sent from the first one the caller got
    until one one-way delay (25 ms at most here) before the last sample, and the uplink those
    the caller sent until one second before it (the edge's RTCP report that sample shows
    answered the previous second's sender report)."""
    samples = outcome.get("samples") or []
    last_ns = int(float(samples[-1]["timestamp"]) * 1e6) if samples else 2**63
    up_tx = [d for d in T.select(client, CLIENT_IP, EDGE_IP, T.is_audio_rtp) if d.time_ns <= last_ns - 1_000_000_000]
    down_rx = T.select(client, EDGE_IP, CLIENT_IP, T.is_audio_rtp)
    first_heard = {d.key for d in down_rx}
    down_tx = T.select(edge_side, EDGE_IP, CLIENT_IP, T.is_audio_rtp)
    start = next((i for i, d in enumerate(down_tx) if d.key in first_heard), 0)
    down_tx = [d for d in down_tx[start:] if d.time_ns <= last_ns - 25_000_000]
    return T.FlowTruth(
        T.direction_truth(up_tx, T.select(edge_side, CLIENT_IP, EDGE_IP, T.is_audio_rtp)),
        T.direction_truth(down_tx, down_rx))


def evaluate(name: str, truth: dict, got: dict, up: DirectionSpec, down: DirectionSpec) -> list[Check]:
    checks = []

    def add(metric, key, tolerance, unit):
        ok = abs(got[key] - truth[key]) <= tolerance and not math.isnan(got[key])
        checks.append(Check(name, metric, truth[key], got[key], math.nan, math.nan, f"±{tolerance:.2f}{unit}", ok))

    add("rtt ms", "rtt", max(1.0, 0.03 * truth["rtt"]), " ms")
    add("jitter up ms", "jitter_up", max(JITTER_FLOOR_MS, 0.1 * truth["jitter_up"]), " ms")
    add("jitter down ms", "jitter_down", max(JITTER_FLOOR_MS, 0.1 * truth["jitter_down"]), " ms")
    add("loss up %", "loss_up", loss_bound(truth["n_up"]), " pp")
    add("loss down %", "loss_down", loss_bound(truth["n_down"]), " pp")
    for metric, spec, key, n in (("loss up vs configured", up, "loss_up", truth["n_up"]),
                                 ("loss down vs configured", down, "loss_down", truth["n_down"])):
        configured = 100 * spec.expected_loss()
        bound = statistical_bound(spec, n)
        checks.append(Check(name, metric, configured, got[key], math.nan, math.nan, f"±{bound:.2f} pp (4σ, n={n})",
                            abs(got[key] - configured) <= bound))
    return checks


def serve(lab: Lab, binary: Path, secret: str, out: Path) -> str:
    """`preflight serve` in the edge namespace with the local edge's applications and routes; its signaling URL."""
    edge = lab.popen("edge", [str(binary), "serve", "--host", EDGE_IP, "--port", "0", "--media-port", "0",
                              "--api-key", API_KEY, "--api-secret", secret, "--account", ACCOUNT, "--log-level", "warning"],
                     stdout=subprocess.PIPE, stderr=open(out / "edge.log", "w"), text=True)
    assert edge.stdout is not None
    lines = [edge.stdout.readline().strip(), edge.stdout.readline().strip()]
    url = next((l.split(" ", 1)[1] for l in lines if l.startswith("signaling ")), None)
    if url is None:
        raise LabError(f"the edge did not start: {lines}")
    return url


def mint(binary: Path, secret: str, identity: str, application: str, *extra: str) -> str:
    """An access token of the served edge's key for `application` (extra: `--incoming`)."""
    return subprocess.run([str(binary), "token", "--identity", identity, "--api-key", API_KEY, "--api-secret", secret,
                           "--account", ACCOUNT, "--application", application, "--ttl", "3600", *extra],
                          capture_output=True, text=True, check=True).stdout.strip()


def main(duration: int = 20, out: Path | None = None) -> int:
    repo = Path(__file__).resolve().parents[2]
    binary = preflight_binary(repo)
    out = out or repo / ".build" / "lab-call" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    up, down = DirectionSpec(delay=20, loss=0.02), DirectionSpec(delay=20, loss=0.02)
    name = "call-loss2-rtt40"
    try:
        with Lab(workdir=str(out)) as lab:
            lab.impair(up, down, seed=1)
            url = serve(lab, binary, secret, out)

            def token(identity: str, *extra: str) -> str:
                return mint(binary, secret, identity, DIAL_APP, *extra)

            listener = lab.popen("edge", [str(binary), "listen", "--identity", "bob", "--edge-url", url, "--token",
                                          token("bob", "--incoming"), "--answer", "auto", "--calls", "1"],
                                 stdout=open(out / "callee.txt", "w"), stderr=subprocess.STDOUT, text=True)
            time.sleep(1.0)
            if listener.poll() is not None:
                raise LabError(f"the callee stopped before the call: see {out / 'callee.txt'}")
            lab.start_captures(name)
            result = lab.run_on("client", [str(binary), "call", "--to", "client:bob", "--edge-url", url, "--token",
                                           token("alice"), "--duration", str(duration), "--json"], timeout=duration + 60)
            captures = lab.stop_captures()
            (out / "caller.json").write_text(result.stdout)
            (out / "caller.log").write_text(result.stderr)
            if result.returncode != 0:
                raise LabError(f"the call failed: {result.stderr.strip().splitlines()[-1:]}")
            outcome = json.loads(result.stdout)["caller"]
            client, edge_side = read_udp(captures["client"]), read_udp(captures["edge"])
            flow = windowed_truth(client, edge_side, outcome)
    except LabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from labkit.bench import truth_metrics
    truth = truth_metrics(flow, {"statsSamples": outcome.get("samples") or []})
    got = call_metrics(outcome)
    checks = evaluate(name, truth, got, up, down)
    print(f"caller: states {outcome.get('states')}, callbacks {outcome.get('callbacks')}, "
          f"{len(outcome.get('samples') or [])} samples; truth: {truth['n_up']} packets up, {truth['n_down']} down")
    print("| scenario | metric | ground truth | Preflight (caller) | error | target | |")
    print("|---|---|---|---|---|---|---|")
    for c in checks:
        print(f"| {c.scenario} | {c.metric} | {fmt(c.truth_p)} | {fmt(c.preflight)} | {c.error:+.2f} | {c.target} | {'ok' if c.ok else 'FAIL'} |")
    failed = [c for c in checks if not c.ok]
    for c in failed:
        print(f"FAIL {c.scenario} {c.metric}: truth {fmt(c.truth_p)}, caller {fmt(c.preflight)}, target {c.target}")
    return 1 if failed else 0
