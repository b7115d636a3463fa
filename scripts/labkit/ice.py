"""The ICE scenarios of docs/lab.md, each an automated check: the client behind a NAT
(nftables masquerade), coturn on the TURN host with a shared secret, the edge handing out
TURN REST credentials, and nft rules in the router blocking what each scenario blocks.

    lab ice [--scenario NAME]    exits 1 when a check fails, 2 when the lab cannot run
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from labkit.bench import ACCOUNT, API_KEY, APP, preflight_binary
from labkit.impair import DirectionSpec
from labkit.lab import CLIENT_IP, EDGE_IP, TURN_IP, Lab, LabError, require_tools

SIGNALING_PORT = 8080
TURN_PORT = 3478
REPO = Path(__file__).resolve().parent.parent.parent


class Scenario:
    def __init__(self, name: str, blocks: list[str], expect: str):
        self.name, self.blocks, self.expect = name, blocks, expect


SCENARIOS = [
    Scenario("open", [], "a direct pair (the NAT's server-reflexive address), no TURN"),
    Scenario("udp-to-edge-blocked", [f"ip daddr {EDGE_IP} udp dport != 0"], "a relay pair through coturn over UDP"),
    Scenario("all-udp-blocked", ["meta l4proto udp"], "a relay pair through coturn over TCP"),
    Scenario("relay-rtt", [f"ip daddr {EDGE_IP} udp dport != 0"],
             "with 15 ms on every UDP leg leaving the edge or the TURN host, the relayed RTT is the direct one plus the relay's two legs"),
    Scenario("all-blocked", [f"ip daddr {EDGE_IP} tcp dport != {SIGNALING_PORT}", f"ip daddr {TURN_IP}", "meta l4proto udp"],
             "ICE fails with 53405 within the timeouts, with a partial report"),
    Scenario("path-dies", [], "the SDK notices the dead path and fails with the partial report, no hang"),
]


def mean_rtt(report: dict) -> float:
    samples = [x["rtt"] for x in report.get("statsSamples", []) if x.get("rtt")]
    return sum(samples) / len(samples) if samples else float("nan")


class ICELab:
    def __init__(self, lab: Lab, binary: Path, out: Path):
        self.lab, self.binary, self.out = lab, binary, out
        self.secret = secrets.token_hex(32)
        self.turn_secret = secrets.token_hex(16)
        self.failures: list[str] = []

    def start(self) -> None:
        turn_log = self.out / "turnserver.log"
        self.lab.popen("turn", [
            "turnserver", "-n", "--listening-ip", TURN_IP, "--relay-ip", TURN_IP, "--listening-port", str(TURN_PORT),
            "--use-auth-secret", "--static-auth-secret", self.turn_secret, "--realm", "lab.preflight.test",
            "--fingerprint", "--no-cli", "--no-tls", "--no-dtls", "--simple-log", "--log-file", str(turn_log),
            "--no-stdout-log", "--pidfile", str(self.out / "turnserver.pid"),
        ], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_tcp("turn", TURN_IP, TURN_PORT)
        edge = self.lab.popen("edge", [
            str(self.binary), "serve", "--host", EDGE_IP, "--port", str(SIGNALING_PORT), "--media-port", "0",
            "--api-key", API_KEY, "--api-secret", self.secret, "--account", ACCOUNT, "--application", f"{APP}=echo",
            "--log-level", "warning",
            "--ice-server", f"turn:{TURN_IP}:{TURN_PORT}?transport=udp",
            "--ice-server", f"turn:{TURN_IP}:{TURN_PORT}?transport=tcp", "--turn-secret", self.turn_secret,
        ], stdout=subprocess.PIPE, stderr=open(self.out / "edge.log", "w"), text=True)
        assert edge.stdout is not None
        line = edge.stdout.readline().strip()
        if not line.startswith("signaling "):
            raise LabError(f"the edge did not start: {line!r}; see {self.out / 'edge.log'}")
        self.url = line.split(" ", 1)[1]
        self.token = subprocess.run([
            str(self.binary), "token", "--identity", "ice-lab", "--api-key", API_KEY, "--api-secret", self.secret,
            "--account", ACCOUNT, "--application", APP, "--ttl", "3600",
        ], capture_output=True, text=True, check=True).stdout.strip()

    def wait_tcp(self, host: str, ip: str, port: int) -> None:
        probe = ("import socket,sys,time\n"
                 "for _ in range(100):\n"
                 f"  try: socket.create_connection(('{ip}',{port}),0.2).close(); sys.exit(0)\n"
                 "  except OSError: time.sleep(0.1)\n"
                 "sys.exit(1)\n")
        if self.lab.run_on(host, [sys.executable, "-c", probe], timeout=20).returncode != 0:
            raise LabError(f"nothing listens on {ip}:{port} on the {host} host")

    def check(self, scenario: str, ok: bool, what: str) -> None:
        print(f"{'ok  ' if ok else 'FAIL'} {scenario}: {what}", flush=True)
        if not ok:
            self.failures.append(f"{scenario}: {what}")

    def run_client(self, name: str, extra: list[str], duration: int, cut_after: float | None = None):
        argv = [str(self.binary), "run", "--edge-url", self.url, "--token", self.token, "--duration", str(duration), "--json",
                "--gathering-timeout", "2", "--ice-timeout", "4"] + extra
        start = time.monotonic()
        p = self.lab.popen("client", argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if cut_after is not None:
            # The path dies once media flows: the router's client-side link goes down.
            assert p.stderr is not None
            stderr_lines = []
            for line in p.stderr:
                stderr_lines.append(line)
                if line.startswith("connected:"):
                    break
            time.sleep(cut_after)
            subprocess.run(["ip", "-n", self.lab.ns["router"], "link", "set", "r-c", "down"], check=True)
            out, err = p.communicate(timeout=duration + 60)
            err = "".join(stderr_lines) + err
        else:
            out, err = p.communicate(timeout=duration + 60)
        elapsed = time.monotonic() - start
        self.lab.processes.remove(p)
        (self.out / f"{name}.json").write_text(out)
        (self.out / f"{name}.log").write_text(err)
        report = json.loads(out) if out.strip() else {}
        return p.returncode, report, err, elapsed

    def run_check(self, name: str, duration: int = 5):
        """`preflight check` (100ms's connectivity check) from the client: its exit, its JSON result."""
        argv = [str(self.binary), "check", "--edge-url", self.url, "--token", self.token, "--duration", str(duration), "--json",
                "--ice-timeout", "4"]
        p = self.lab.run_on("client", argv, timeout=duration + 60)
        (self.out / f"{name}-check.json").write_text(p.stdout)
        (self.out / f"{name}-check.log").write_text(p.stderr)
        return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else {})

    def connectivity_check(self, s: Scenario) -> None:
        """The connectivity check in the open, relayed and blocked scenarios: both its connections
        take the path the preflight test took, or it ends where the block stops it."""
        rc, result = self.run_check(s.name)
        media = result.get("mediaServerReport", {})
        pairs = [media.get("publishICECandidatePairSelected") or {}, media.get("subscribeICECandidatePairSelected") or {}]
        locals_ = [p.get("localCandidate", {}) for p in pairs]
        errors = [e.get("code") for e in result.get("errors", [])]
        received = sum(media.get("stats", {}).get(k, {}).get("packetsReceived", 0) for k in ("audio", "video"))
        print(f"     check: state {result.get('state')}, errors {errors}, pairs {[(l.get('candidateType'), l.get('ip')) for l in locals_]}, "
              f"{received} packets back", flush=True)
        if s.name == "all-blocked":
            self.check(s.name, rc == 1 and result.get("state") == "signallingConnected" and errors[:1] == [53405],
                       f"the connectivity check ended at signallingConnected with 53405 (exit {rc}, {result.get('state')}, {errors})")
            self.check(s.name, not media.get("isPublishICEConnected") and not media.get("isSubcribeICEConnected"),
                       "neither of its connections passed ICE")
            return
        relayed = s.name == "udp-to-edge-blocked"
        self.check(s.name, rc == 0 and result.get("state") == "completed" and received > 100,
                   f"the connectivity check completed (exit {rc}, {result.get('state')}, {received} packets back)")
        self.check(s.name, all((l.get("candidateType") == "relay" and l.get("ip") == TURN_IP) == relayed for l in locals_),
                   f"both its connections {'went through the relay' if relayed else 'went direct'}")

    def scenario(self, s: Scenario) -> None:
        self.lab.unblock()
        if s.blocks:
            self.lab.block(s.blocks)
        print(f"== {s.name}: {s.expect}", flush=True)
        if s.name == "relay-rtt":
            self.relay_rtt(s)
            return
        if s.name == "path-dies":
            rc, report, err, elapsed = self.run_client(s.name, ["--media-timeout", "2"], duration=10, cut_after=3)
        else:
            rc, report, err, elapsed = self.run_client(s.name, [], duration=3)
        pair = report.get("selectedIceCandidatePair") or {}
        local = pair.get("localCandidate", {})
        candidates = report.get("iceCandidates", [])
        timeline = [f"{e['group']}:{e['name']}" for e in report.get("timeline", [])]
        if s.name == "open":
            self.check(s.name, rc == 0, f"the test completed (exit {rc})")
            self.check(s.name, report.get("isTurnRequired") == "false", f"isTurnRequired false ({report.get('isTurnRequired')})")
            srflx = [c for c in candidates if c["candidateType"] == "srflx"]
            self.check(s.name, any(c["ip"] == CLIENT_IP for c in srflx),
                       f"a srflx candidate shows the NAT's public address {CLIENT_IP} ({[c['ip'] for c in srflx]})")
            self.check(s.name, local.get("candidateType") in ("srflx", "host", "prflx") and local.get("ip") == CLIENT_IP,
                       f"the selected local candidate is the NAT's address ({local.get('candidateType')} {local.get('ip')})")
            self.check(s.name, any(c["candidateType"] == "relay" for c in candidates), "relay candidates were gathered too")
            self.connectivity_check(s)
        elif s.name in ("udp-to-edge-blocked", "all-udp-blocked"):
            transport = "udp" if s.name == "udp-to-edge-blocked" else "tcp"
            self.check(s.name, rc == 0, f"the test completed (exit {rc}; {err.strip().splitlines()[-1:] if rc else ''})")
            self.check(s.name, report.get("isTurnRequired") == "true", f"isTurnRequired true ({report.get('isTurnRequired')})")
            self.check(s.name, local.get("candidateType") == "relay" and local.get("ip") == TURN_IP
                       and local.get("url", "").endswith(f"transport={transport}"),
                       f"the selected local candidate is coturn's relay over {transport} ({local.get('candidateType')} {local.get('ip')} {local.get('url')})")
            samples = report.get("statsSamples", [])
            self.check(s.name, len(samples) >= 2 and all(x.get("packetsLostFraction", 1) == 0 for x in samples),
                       f"media flowed through the relay without loss ({len(samples)} samples)")
            self.check(s.name, self.lab.blocked_packets() > 0, f"the block dropped packets ({self.lab.blocked_packets()})")
            if s.name == "udp-to-edge-blocked":
                self.connectivity_check(s)
        elif s.name == "all-blocked":
            self.check(s.name, rc == 1 and "error 53405" in err, f"the test failed with 53405 (exit {rc}: {err.strip().splitlines()[-1:]})")
            self.check(s.name, elapsed < 2 + 4 + 5, f"it failed within the gathering and ICE timeouts ({elapsed:.1f} s)")
            self.check(s.name, any(c["candidateType"] == "host" and not c["isRemote"] for c in candidates),
                       "the partial report lists the gathered host candidate")
            errors = report.get("iceCandidateErrors", [])
            self.check(s.name, len(errors) >= 2 and all(e["errorCode"] == 701 for e in errors if e["url"].startswith("turn:")),
                       f"the unreachable TURN servers are reported ({[(e['url'], e['errorCode']) for e in errors]})")
            self.check(s.name, "ice-connection-state:failed" in timeline, "the timeline ends ICE in failed")
            self.connectivity_check(s)
        elif s.name == "path-dies":
            self.check(s.name, rc == 1 and "error 53405" in err, f"the test failed with 53405 (exit {rc}: {err.strip().splitlines()[-1:]})")
            self.check(s.name, "reconnecting:" in err, "the SDK reported the reconnect attempt")
            self.check(s.name, "ice-connection-state:disconnected" in timeline, "the timeline has ICE disconnected")
            disconnect = next((e["timestamp"] for e in report.get("timeline", []) if e["name"] == "disconnected"), None)
            connected = next((e["timestamp"] for e in report.get("timeline", []) if e["name"] == "connected"), None)
            if disconnect and connected:
                noticed = (disconnect - connected) / 1000 - 3
                self.check(s.name, noticed < 2 + 1.5, f"the dead path was noticed {noticed:.1f} s after the cut (media timeout 2 s)")
            self.check(s.name, len(report.get("statsSamples", [])) >= 2, "the partial report keeps the samples before the cut")
            self.check(s.name, elapsed < 10 + 8, f"no hang: ended after {elapsed:.1f} s (test 10 s)")
            subprocess.run(["ip", "-n", self.lab.ns["router"], "link", "set", "r-c", "up"], check=False)

    def relay_rtt(self, s: Scenario) -> None:
        # Direct: client → edge (0 ms) and back (15 ms). Relayed: client → TURN (0), TURN → edge
        # (15), edge → TURN (15), TURN → client (15): 30 ms more, the relay hop's two legs.
        self.lab.unblock()
        self.lab.impair(DirectionSpec(), DirectionSpec(delay=15), seed=1)
        try:
            rc_direct, direct, _, _ = self.run_client(f"{s.name}-direct", [], duration=3)
            self.lab.block(s.blocks)
            rc_relay, relayed, _, _ = self.run_client(f"{s.name}-relayed", [], duration=3)
        finally:
            self.lab.clear_impairments()
        self.check(s.name, rc_direct == 0 and rc_relay == 0, f"both tests completed (exit {rc_direct}, {rc_relay})")
        self.check(s.name, relayed.get("isTurnRequired") == "true", "the second one went through the relay")
        d, r = mean_rtt(direct), mean_rtt(relayed)
        self.check(s.name, 14 <= d <= 25, f"direct RTT {d:.1f} ms (one delayed leg of 15 ms)")
        self.check(s.name, 25 <= r - d <= 37, f"relayed RTT {r:.1f} ms = direct + {r - d:.1f} ms (the relay's two legs, 30 ms)")


def main(names: list[str] | None = None) -> int:
    require_tools(["turnserver", "nft"])
    binary = preflight_binary(REPO)
    out = Path(tempfile.mkdtemp(prefix="preflight-ice-"))
    selected = [s for s in SCENARIOS if not names or s.name in names]
    with Lab(workdir=str(out), ice=True) as lab:
        ice = ICELab(lab, binary, out)
        ice.start()
        for s in selected:
            ice.scenario(s)
    print(f"logs and reports: {out}")
    if ice.failures:
        print(f"{len(ice.failures)} check(s) failed", file=sys.stderr)
        return 1
    print(f"all ICE scenarios met ({len(selected)})")
    return 0
