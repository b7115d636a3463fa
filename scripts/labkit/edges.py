"""`lab edges`: two edges in their own namespaces, 40 ms apart (20 ms each way), a client near
each (5 ms each way), and PostgreSQL in a namespace of its own beside the first edge (20 ms each
way from the second), which both edges share (`preflight serve --route-across-edges`). Every
host hangs off one router namespace; the delays are the NFQUEUE delayer's (this machine has no
netem), one instance for the clients' links and one for the inter-edge link:

    client A 198.18.20.2 ─5 ms─┐                  ┌─5 ms─ 198.18.23.2 client B
    edge europe 198.18.21.2 ───┤ router ├── 20 ms ── 198.18.22.2 edge america
    PostgreSQL 198.18.24.2 ────┘ (near europe: 20 ms from america)

Each edge advertises its address to clients and as its trunk (`--trunk-address`). It measures,
in one run, the call setup time (from placing the call to connected, median) of calls on one
edge and of calls across the edges, and how soon a registration made on one edge is routable
from the other (p99), and prints each beside its target (docs/lab.md)."""

from __future__ import annotations

import json
import math
import os
import secrets
import select
import shutil
import statistics
import subprocess
import sys
import time
from base64 import b64encode
from pathlib import Path

from labkit.bench import ACCOUNT, API_KEY, preflight_binary
from labkit.call import DIAL_APP, mint
from labkit.impair import DirectionSpec
from labkit.lab import Lab, LabError, run

PREFIX = "pfe"
HOSTS = {"ca": "198.18.20", "ea": "198.18.21", "eb": "198.18.22", "cb": "198.18.23", "db": "198.18.24"}
CLIENT_A, EDGE_A, EDGE_B, CLIENT_B, DB = (f"{HOSTS[h]}.2" for h in ("ca", "ea", "eb", "cb", "db"))
HTTP_PORT, MEDIA_PORT = 8080, 40000
CLIENT_DELAY_MS, TRUNK_DELAY_MS = 5, 20
# The caller's dial application answers it only once the callee answered (answerOnBridge): its
# "connected" is then the whole call's setup, through the callee's edge and back.
BRIDGE_APP = "AP0000000000000000000000dialbridge"


class EdgesLab(Lab):
    """The namespaces, links, delays and the PostgreSQL server: a ``Lab`` of another shape, its
    processes and namespaces torn down the same way on exit."""

    def __init__(self, workdir: Path):
        super().__init__(workdir=str(workdir))
        self.ns = {h: f"{PREFIX}{self.tag}-{h}" for h in list(HOSTS) + ["r"]}
        self.workdir = workdir

    def clear_impairments(self) -> None:
        """The delayers are the lab's own processes: they stop with it."""
        return None

    def up(self) -> None:
        for ns in self.ns.values():
            run(["ip", "netns", "add", ns])
            self._made.append(ns)
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
        r = self.ns["r"]
        for host, net in HOSTS.items():
            tmp_a, tmp_b = f"{self.tag[-6:]}{host}h", f"{self.tag[-6:]}{host}r"
            run(["ip", "link", "add", tmp_a, "type", "veth", "peer", "name", tmp_b])
            run(["ip", "link", "set", tmp_a, "netns", self.ns[host]])
            run(["ip", "link", "set", tmp_b, "netns", r])
            run(["ip", "-n", self.ns[host], "link", "set", tmp_a, "name", "h0"])
            run(["ip", "-n", r, "link", "set", tmp_b, "name", f"r-{host}"])
            run(["ip", "-n", self.ns[host], "addr", "add", f"{net}.2/24", "dev", "h0"])
            run(["ip", "-n", r, "addr", "add", f"{net}.1/24", "dev", f"r-{host}"])
            run(["ip", "-n", self.ns[host], "link", "set", "h0", "up"])
            run(["ip", "-n", r, "link", "set", f"r-{host}", "up"])
            run(["ip", "-n", self.ns[host], "route", "add", "default", "via", f"{net}.1"])
        run(["ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
        self.delay()
        self.start_postgres()

    def delay(self) -> None:
        """Two delayers in the router: the clients' links (queues 1 and 2) and the inter-edge link,
        with PostgreSQL beside europe (queues 3 and 4)."""
        r = self.ns["r"]
        for name, delay_ms, queues in (("clients", CLIENT_DELAY_MS, (1, 2)), ("trunk", TRUNK_DELAY_MS, (3, 4))):
            config = self.workdir / f"delay-{name}.json"
            spec = DirectionSpec(delay=delay_ms).to_dict()
            config.write_text(json.dumps({"seed": 1, "up": spec, "down": spec, "queues": {"up": queues[0], "down": queues[1]}}))
            delayer = self.popen("r", [sys.executable, "-m", "labkit.delayer", "--config", str(config),
                                       "--log", str(self.workdir / f"delay-{name}.csv")], stdout=subprocess.PIPE, text=True)
            assert delayer.stdout is not None
            if delayer.stdout.readline().strip() != "ready":
                raise LabError(f"the {name} delayer did not start; is netfilterqueue installed?")
        rules = [("ca", "ea", 1), ("ea", "ca", 2), ("cb", "eb", 1), ("eb", "cb", 2),
                 ("ea", "eb", 3), ("eb", "ea", 4), ("eb", "db", 3), ("db", "eb", 4)]
        for source, destination, queue in rules:
            run(["ip", "netns", "exec", r, "iptables", "-A", "FORWARD", "-i", f"r-{source}", "-o", f"r-{destination}",
                 "-j", "NFQUEUE", "--queue-num", str(queue)])

    def start_postgres(self) -> None:
        bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"))
        if not bins:
            raise LabError("PostgreSQL's server is missing (apt-get install postgresql)")
        bindir = bins[-1].parent
        data = self.workdir / "pg"
        if data.exists():
            shutil.rmtree(data)
        data.mkdir(parents=True)
        shutil.chown(data, "postgres", "postgres")
        os.chmod(data, 0o700)
        run(["runuser", "-u", "postgres", "--", str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"])
        with open(data / "pg_hba.conf", "a") as hba:
            hba.write("host all all 198.18.0.0/15 trust\n")
        log = open(self.workdir / "postgres.log", "w")
        self.popen("db", ["runuser", "-u", "postgres", "--", str(bindir / "postgres"), "-D", str(data), "-c", f"listen_addresses={DB}",
                          "-c", "port=5432", "-k", str(data), "-c", "max_connections=100", "-c", "fsync=off"], stdout=log, stderr=log)
        for _ in range(100):
            ready = subprocess.run(["ip", "netns", "exec", self.ns["ea"], str(bindir / "pg_isready"), "-h", DB, "-p", "5432", "-q"])
            if ready.returncode == 0:
                return
            time.sleep(0.1)
        raise LabError(f"PostgreSQL did not start: see {self.workdir / 'postgres.log'}")


class Edge:
    """One `preflight serve` of the lab."""

    def __init__(self, lab: EdgesLab, binary: Path, secret: str, host: str, name: str, address: str):
        self.name, self.host, self.secret = name, host, secret
        self.url = f"ws://{address}:{HTTP_PORT}/signaling"
        self.status_url = f"http://{address}:{HTTP_PORT}/status"
        self.process = lab.popen(host, [
            str(binary), "serve", "--host", address, "--port", str(HTTP_PORT), "--media-port", str(MEDIA_PORT),
            "--trunk-address", f"{address}:{MEDIA_PORT}", "--edge-name", name, "--api-rate", "1000",
            # 100 calls from alice in a few minutes: over the default 1 a second, bursts of 10.
            "--invite-rate", "100",
            "--database", f"postgres://postgres@{DB}:5432/postgres?sslmode=disable", "--route-across-edges",
            "--api-key", API_KEY, "--api-secret", secret, "--account", ACCOUNT, "--log-level", "warning",
        ], stdout=subprocess.PIPE, stderr=open(lab.workdir / f"edge-{name}.log", "w"), text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith("signaling "):
            raise LabError(f"the {name} edge did not start: {line.strip()} (see edge-{name}.log)")


def status_probe(edge: Edge) -> str:
    """Python that prints, each time the edge's count of other edges' registrations changes, the
    time and the count (polling `/status` every 2 ms), until killed."""
    auth = b64encode(f"{API_KEY}:{edge.secret}".encode()).decode()
    return (
        "import json,time,urllib.request,sys\n"
        f"req=urllib.request.Request('{edge.status_url}',headers={{'Authorization':'Basic {auth}'}})\n"
        "last=None\n"
        "while True:\n"
        "  n=json.load(urllib.request.urlopen(req,timeout=5)).get('cluster',{}).get('remoteRegistrations')\n"
        "  if n!=last:\n"
        "    print(time.time(),n,flush=True);last=n\n"
        "  time.sleep(0.002)\n"
    )


def setup_times(lab: EdgesLab, binary: Path, secret: str, callee_host: str, callee_edge: Edge, caller_edge: Edge,
                calls: int, tag: str) -> list[float]:
    """`calls` calls from alice (client A, on `caller_edge`) to a `listen`ing bob on `callee_edge`
    (from `callee_host`): each one's connectMilliseconds."""
    bob = f"bob-{tag}"
    # Line-buffered: the `registered` line is read as it is printed.
    listener = lab.popen(callee_host, ["stdbuf", "-oL", str(binary), "listen", "--identity", bob, "--edge-url", callee_edge.url, "--token",
                                       mint(binary, secret, bob, DIAL_APP, "--incoming"), "--answer", "auto",
                                       "--calls", str(calls)],
                         stdout=subprocess.PIPE, stderr=open(lab.workdir / f"listen-{tag}.log", "w"), text=True)
    assert listener.stdout is not None
    if "registered" not in listener.stdout.readline():
        raise LabError(f"{bob} did not register: see listen-{tag}.log")
    time.sleep(0.5)  # the announcement, and the 2 s reload behind it, reach the other edge
    times = []
    for index in range(calls):
        for _ in range(50):
            result = lab.run_on("ca", [str(binary), "call", "--to", f"client:{bob}", "--edge-url", caller_edge.url, "--token",
                                       mint(binary, secret, "alice", BRIDGE_APP), "--duration", "1", "--json"], timeout=60)
            caller = json.loads(result.stdout)["caller"] if result.stdout.strip() else {}
            # bob's side of the last call may not have ended yet: busy, try again.
            if (caller.get("error") or {}).get("code") != 31486:
                break
            time.sleep(0.1)
        (lab.workdir / f"call-{tag}-{index}.json").write_text(result.stdout)
        if caller.get("error") or caller.get("connectMilliseconds") is None:
            raise LabError(f"call {index} ({tag}) failed: {caller.get('error') or result.stderr[-500:]}")
        times.append(caller["connectMilliseconds"])
        time.sleep(1.0)  # bob's side of the call ends, and he is rung at most once a second (the edge's default)
    listener.wait(timeout=30)
    return times


def registration_delays(lab: EdgesLab, binary: Path, secret: str, america: Edge, europe: Edge, runs: int) -> list[float]:
    """Registers a device on america `runs` times: ms from its `registered` line to europe's count
    of other edges' registrations going up."""
    probe = lab.popen("ea", [sys.executable, "-c", status_probe(europe)], stdout=subprocess.PIPE,
                      stderr=open(lab.workdir / "status-probe.log", "w"), text=True)
    assert probe.stdout is not None

    def next_change() -> list[str]:
        ready, _, _ = select.select([probe.stdout], [], [], 15)
        line = probe.stdout.readline().split() if ready else []
        if len(line) != 2:
            raise LabError(f"the status probe stopped: see {lab.workdir / 'status-probe.log'}")
        return line

    next_change()  # the count before
    delays = []
    for index in range(runs):
        name = f"reg{index}"
        listener = lab.popen("cb", ["stdbuf", "-oL", str(binary), "listen", "--identity", name, "--edge-url", america.url, "--token",
                                    mint(binary, secret, name, DIAL_APP, "--incoming"), "--answer", "reject", "--calls", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert listener.stdout is not None
        line = listener.stdout.readline()
        registered = time.time()
        if "registered" not in line:
            raise LabError(f"{name} did not register: {line.strip()}")
        seen = next_change()
        delays.append(max(0.0, (float(seen[0]) - registered) * 1000))
        listener.terminate()
        listener.wait(timeout=10)
        next_change()  # its unregistration
    probe.terminate()
    return delays


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile: the smallest value with at least p % of the values at or below it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def main(calls: int = 50, registrations: int = 50, out: Path | None = None) -> int:
    repo = Path(__file__).resolve().parents[2]
    binary = preflight_binary(repo)
    out = out or repo / ".build" / "lab-edges" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    try:
        with EdgesLab(out) as lab:
            europe = Edge(lab, binary, secret, "ea", "europe", EDGE_A)
            america = Edge(lab, binary, secret, "eb", "america", EDGE_B)
            same = setup_times(lab, binary, secret, "ca", europe, europe, calls, "same") if calls else []
            cross = setup_times(lab, binary, secret, "cb", america, europe, calls, "cross") if calls else []
            delays = registration_delays(lab, binary, secret, america, europe, registrations)
    except LabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    rtt = 2 * TRUNK_DELAY_MS
    same_median = statistics.median(same) if same else math.nan
    cross_median = statistics.median(cross) if cross else math.nan
    p99 = percentile(delays, 99)
    checks = [
        (f"call setup across edges, median of {len(cross)}: {cross_median:.1f} ms ≤ on one edge {same_median:.1f} + "
         f"inter-edge RTT {rtt} + 50 = {same_median + rtt + 50:.1f} ms", cross_median <= same_median + rtt + 50),
        (f"a registration routable from the other edge, p99 of {len(delays)}: {p99:.1f} ms ≤ 100 ms", p99 <= 100),
    ]
    figures = {"sameEdgeSetupMs": same, "crossEdgeSetupMs": cross, "registrationDelayMs": delays}
    (out / "edges.json").write_text(json.dumps(figures))
    print(f"two edges {rtt} ms RTT apart, clients {2 * CLIENT_DELAY_MS} ms RTT from theirs; figures in {out / 'edges.json'}")
    if same and cross:
        print(f"call setup on one edge: median {same_median:.1f} ms, p90 {percentile(same, 90):.1f} ms")
        print(f"call setup across edges: median {cross_median:.1f} ms, p90 {percentile(cross, 90):.1f} ms")
    else:
        checks = checks[1:]
    print(f"registration to routable elsewhere: median {statistics.median(delays):.1f} ms, p99 {p99:.1f} ms, max {max(delays):.1f} ms")
    print("Targets:")
    for text, ok in checks:
        print(f"  {'ok  ' if ok else 'FAIL'} {text}")
    return 0 if all(ok for _, ok in checks) else 1
