"""`lab roaming`: two edges in the edge namespace, the near one on the plain lab path and the far
one behind 25 ms of delay each way (the NFQUEUE delayer, on the far edge's address only). A
preflight test in the client namespace with `--roaming far --roaming near` must pick the near
edge; the STUN RTTs it measured are checked against the delay put on the path (docs/lab.md)."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
from pathlib import Path

from labkit.bench import APP, preflight_binary
from labkit.call import ACCOUNT, API_KEY, mint
from labkit.impair import DirectionSpec
from labkit.lab import EDGE_IP, Lab, LabError, run

FAR_IP = "198.18.2.3"
DELAY_MS = 25


def serve(lab: Lab, binary: Path, secret: str, host: str, name: str, out: Path) -> str:
    """`preflight serve` on `host` of the edge namespace, named `name`; its signaling URL."""
    edge = lab.popen("edge", [str(binary), "serve", "--host", host, "--port", "0", "--media-port", "0", "--edge-name", name,
                              "--api-key", API_KEY, "--api-secret", secret, "--account", ACCOUNT, "--log-level", "warning"],
                     stdout=subprocess.PIPE, stderr=open(out / f"edge-{name}.log", "w"), text=True)
    assert edge.stdout is not None
    lines = [edge.stdout.readline().strip(), edge.stdout.readline().strip()]
    url = next((line.split(" ", 1)[1] for line in lines if line.startswith("signaling ")), None)
    if url is None:
        raise LabError(f"the {name} edge did not start: {lines}")
    return url


def main(out: Path | None = None) -> int:
    repo = Path(__file__).resolve().parents[2]
    binary = preflight_binary(repo)
    out = out or repo / ".build" / "lab-roaming" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    try:
        with Lab(workdir=str(out)) as lab:
            run(["ip", "-n", lab.ns["edge"], "addr", "add", f"{FAR_IP}/24", "dev", "e0"])
            lab.impair(DirectionSpec(delay=DELAY_MS), DirectionSpec(delay=DELAY_MS), seed=1, edge_address=FAR_IP)
            near = serve(lab, binary, secret, EDGE_IP, "near", out)
            far = serve(lab, binary, secret, FAR_IP, "far", out)
            token = mint(binary, secret, "lab", APP)
            # The far edge first: the order must not decide.
            test = lab.run_on("client", [str(binary), "run", "--roaming", far, "--roaming", near, "--token", token, "--duration", "3",
                                         "--json", "--no-upload"], timeout=60)
            (out / "roaming.json").write_text(test.stdout)
            (out / "roaming.log").write_text(test.stderr)
            if test.returncode != 0:
                raise LabError(f"the roaming test failed: {test.stderr.strip().splitlines()[-1:]}")
    except LabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    report = json.loads(test.stdout)
    selection = report.get("edgeSelection") or {}
    rtts = {c["edge"]: c.get("rtt") for c in selection.get("candidates", [])}
    far_rtt, near_rtt = rtts.get("far"), rtts.get("near")
    truth = 2 * DELAY_MS
    checks = [
        ("the near edge was chosen", report.get("edge") == "near" and selection.get("selectedEdge") == "near"),
        ("selectedEdge stays roaming", report.get("selectedEdge") == "roaming"),
        (f"far RTT within {truth} to {truth + 10} ms", far_rtt is not None and truth <= far_rtt <= truth + 10),
        ("near RTT under 5 ms", near_rtt is not None and near_rtt < 5),
        ("the test itself ran against the near edge (RTT under 5 ms)", report["networkStats"]["rtt"]["average"] < 5),
    ]
    print(f"two edges: near {near} (no delay), far {far} ({DELAY_MS} ms each way, {truth} ms RTT put on the path)")
    answered = ", ".join(f"{c['edge']} {c['pingsAnswered']}/{c['pingsSent']} pings" for c in selection.get("candidates", []))
    if near_rtt is not None and far_rtt is not None:
        print(f"roaming measured: near {near_rtt:.2f} ms, far {far_rtt:.2f} ms ({answered})")
    else:
        print(f"roaming measured: {rtts} ({answered})")
    print(f"chose {selection.get('selectedEdge')}; the test's RTT {report['networkStats']['rtt']['average']:.2f} ms")
    for name, ok in checks:
        print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(ok for _, ok in checks) else 1
