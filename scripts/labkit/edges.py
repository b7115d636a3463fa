"""`lab edges`: two edges in their own namespaces, 40 ms apart (20 ms each way), a client near
each (5 ms each way), and PostgreSQL in a namespace of its own beside the first edge (20 ms each
way from the second), which both edges share (`preflight serve --route-across-edges`). Every
host hangs off one router namespace; the delays are the NFQUEUE delayer's (this machine has no
netem), one instance for the clients' links and one for the inter-edge link:

    client A 198.18.20.2 ─5 ms─┐                  ┌─5 ms─ 198.18.23.2 client B
    edge europe 198.18.21.2 ───┤ router ├── 20 ms ── 198.18.22.2 edge america
    PostgreSQL 198.18.24.2 ────┤ (near europe: 20 ms from america); coturn on america's address
    load host 198.18.25.2 ─────┘ (no delay: `preflight load`'s parties)

Each edge advertises its address to clients and as its trunk (`--trunk-address`). It measures,
in one run, the call setup time (from placing the call to connected, median) of calls on one
edge and of calls across the edges, how soon a registration made on one edge is routable from
the other (p99), what each edge's relay adds to a packet (edges_load), concurrent calls across
the edges with each edge's CPU per packet (edges_load), an edge killed mid-call and a rolling
restart (edges_failover), and prints each beside its target (docs/lab.md)."""

from __future__ import annotations

import json
import math
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import threading
import time
from base64 import b64encode
from pathlib import Path

from labkit.bench import ACCOUNT, API_KEY, preflight_binary
from labkit.call import DIAL_APP, mint
from labkit.impair import DirectionSpec
from labkit.lab import Lab, LabError, run

PREFIX = "pfe"
HOSTS = {"ca": "198.18.20", "ea": "198.18.21", "eb": "198.18.22", "cb": "198.18.23", "db": "198.18.24", "lg": "198.18.25"}
CLIENT_A, EDGE_A, EDGE_B, CLIENT_B, DB, LOAD = (f"{HOSTS[h]}.2" for h in ("ca", "ea", "eb", "cb", "db", "lg"))
HTTP_PORT, MEDIA_PORT, TURN_PORT = 8080, 40000, 3478
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
        self.start_turn()

    def start_turn(self) -> None:
        """coturn beside america (in its namespace, on its address): a client that cannot reach
        america's media port directly relays through it (`serve --ice-server`, TURN REST
        credentials from `--turn-secret`)."""
        if shutil.which("turnserver") is None:
            raise LabError("coturn's turnserver is missing (apt-get install coturn)")
        self.turn_secret = secrets.token_hex(16)
        self.popen("eb", ["turnserver", "-n", "--listening-ip", EDGE_B, "--relay-ip", EDGE_B, "--listening-port", str(TURN_PORT),
                          "--use-auth-secret", "--static-auth-secret", self.turn_secret, "--realm", "lab.preflight.test",
                          "--fingerprint", "--no-cli", "--no-tls", "--no-dtls", "--simple-log",
                          "--log-file", str(self.workdir / "turnserver.log"), "--no-stdout-log",
                          "--pidfile", str(self.workdir / "turnserver.pid"),
                          "--min-port", "49152", "--max-port", "49999"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def america_turn_arguments(self) -> tuple[str, ...]:
        return ("--ice-server", f"turn:{EDGE_B}:{TURN_PORT}?transport=udp", "--turn-secret", self.turn_secret)

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
        rules = [("ca", "ea", 1), ("ea", "ca", 2), ("cb", "eb", 1), ("eb", "cb", 2), ("eb", "db", 3), ("db", "eb", 4)]
        for source, destination, queue in rules:
            self._queue("-A", source, destination, queue)
        self.delay_trunk()

    def _queue(self, action: str, source: str, destination: str, queue: int) -> None:
        run(["ip", "netns", "exec", self.ns["r"], "iptables", action, "FORWARD", "-i", f"r-{source}", "-o", f"r-{destination}",
             "-j", "NFQUEUE", "--queue-num", str(queue)])

    def delay_trunk(self) -> None:
        """The inter-edge link through the trunk delayer (queues 3 and 4)."""
        self._queue("-A", "ea", "eb", 3)
        self._queue("-A", "eb", "ea", 4)

    def undelay_trunk(self) -> None:
        """The inter-edge link straight through the router (for the load: the delayer is Python)."""
        self._queue("-D", "ea", "eb", 3)
        self._queue("-D", "eb", "ea", 4)

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

    def __init__(self, lab: EdgesLab, binary: Path, secret: str, host: str, name: str, address: str, extra: tuple[str, ...] = (),
                 log_suffix: str = ""):
        self.name, self.host, self.secret, self.extra = name, host, secret, extra
        self.http = f"http://{address}:{HTTP_PORT}"
        self.url = f"ws://{address}:{HTTP_PORT}/signaling"
        self.status_url = f"http://{address}:{HTTP_PORT}/status"
        self.process = lab.popen(host, [
            str(binary), "serve", "--host", address, "--port", str(HTTP_PORT), "--media-port", str(MEDIA_PORT),
            "--trunk-address", f"{address}:{MEDIA_PORT}", "--edge-name", name, "--api-rate", "1000",
            # 100 calls from alice in a few minutes: over the default 1 a second, bursts of 10.
            "--invite-rate", "100",
            # The load host's 400 parties come from one address.
            "--max-sessions", "1000", "--max-sessions-per-account", "1000", "--max-connections-per-address", "1000",
            "--max-connections", "2048",
            "--database", f"postgres://postgres@{DB}:5432/postgres?sslmode=disable", "--route-across-edges",
            "--api-key", API_KEY, "--api-secret", secret, "--account", ACCOUNT, "--log-level", "warning", *extra,
        ], stdout=subprocess.PIPE, stderr=open(lab.workdir / f"edge-{name}{log_suffix}.log", "w"), text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith("signaling "):
            raise LabError(f"the {name} edge did not start: {line.strip()} (see edge-{name}{log_suffix}.log)")


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
    (from `callee_host`): each one's connectMilliseconds. The next call is placed once bob's side
    of the last one ended (his `ended` line), so that none finds him busy."""
    bob = f"bob-{tag}"
    # Line-buffered JSON lines: each event is read as it is printed.
    listener = lab.popen(callee_host, ["stdbuf", "-oL", str(binary), "listen", "--identity", bob, "--edge-url", callee_edge.url, "--token",
                                       mint(binary, secret, bob, DIAL_APP, "--incoming"), "--answer", "auto",
                                       "--calls", str(calls), "--json"],
                         stdout=subprocess.PIPE, stderr=open(lab.workdir / f"listen-{tag}.log", "w"), text=True)
    events = listen_events(listener, lab.workdir / f"listen-{tag}.log")
    if next(events, {}).get("event") != "registered":
        raise LabError(f"{bob} did not register: see listen-{tag}.log")
    time.sleep(0.5)  # the announcement reaches the other edge (tens of ms: measured below)
    times = []
    for index in range(calls):
        result = lab.run_on("ca", [str(binary), "call", "--to", f"client:{bob}", "--edge-url", caller_edge.url, "--token",
                                   mint(binary, secret, "alice", BRIDGE_APP), "--duration", "1", "--json"], timeout=60)
        caller = json.loads(result.stdout)["caller"] if result.stdout.strip() else {}
        (lab.workdir / f"call-{tag}-{index}.json").write_text(result.stdout)
        if caller.get("error") or caller.get("connectMilliseconds") is None:
            raise LabError(f"call {index} ({tag}) failed: {caller.get('error') or result.stderr[-500:]}")
        times.append(caller["connectMilliseconds"])
        for event in events:
            if event.get("event") in ("ended", "rejecting", "cancelled"):
                break
        else:
            raise LabError(f"{bob} stopped before call {index} ended: see listen-{tag}.log")
        time.sleep(1.0)  # a callee is rung at most once a second (the edge's default ring rate)
    listener.wait(timeout=30)
    return times


class Stamped:
    """A child's lines (stdout or stderr), each with the time it arrived, read by a thread (no
    `select` on a text stream: it misses lines already buffered); copied to `log` if given."""

    def __init__(self, stream, log: Path | None = None):
        self.lines: list[tuple[float, str]] = []
        self.done = threading.Event()
        self.changed = threading.Condition()

        def pump() -> None:
            out = open(log, "w") if log else None
            for line in stream:
                if out:
                    out.write(line)
                    out.flush()
                with self.changed:
                    self.lines.append((time.time(), line.rstrip("\n")))
                    self.changed.notify_all()
            if out:
                out.close()
            self.done.set()
            with self.changed:
                self.changed.notify_all()

        threading.Thread(target=pump, daemon=True).start()

    def wait_for(self, predicate, timeout: float, start: int = 0) -> tuple[int, float, str] | None:
        """The first line from index `start` on that `predicate` accepts: (index, time, line)."""
        deadline = time.time() + timeout
        index = start
        with self.changed:
            while True:
                while index < len(self.lines):
                    stamp, line = self.lines[index]
                    if predicate(line):
                        return index, stamp, line
                    index += 1
                if self.done.is_set() or time.time() >= deadline:
                    return None
                self.changed.wait(timeout=max(0.01, deadline - time.time()))


    def each(self, timeout: float):
        """Each line as it comes; ends at the stream's end or after `timeout` s without one."""
        index = 0
        while (found := self.wait_for(lambda _: True, timeout, index)) is not None:
            index = found[0] + 1
            yield found[2]


def listen_events(listener: subprocess.Popen, log: Path, timeout: float = 60):
    """The JSON events `preflight listen --json` prints, each as it comes; ends at its exit or
    after `timeout` s without a line."""
    for line in Stamped(listener.stdout).each(timeout):
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            raise LabError(f"listen printed a line that is not JSON: {line.strip()[:200]} (see {log})")


def registration_delays(lab: EdgesLab, binary: Path, secret: str, america: Edge, europe: Edge, runs: int) -> list[float]:
    """Registers a device on america `runs` + 1 times: ms from its `registered` line to europe's
    count of other edges' registrations going up. The first (printed apart, not in the figures)
    is the first announcement since the edges started."""
    probe = lab.popen("ea", [sys.executable, "-c", status_probe(europe)], stdout=subprocess.PIPE,
                      stderr=open(lab.workdir / "status-probe.log", "w"), text=True)
    changes = Stamped(probe.stdout).each(15)

    def next_change() -> list[str]:
        line = next(changes, "").split()
        if len(line) != 2:
            raise LabError(f"the status probe stopped or saw no change in 15 s: see {lab.workdir / 'status-probe.log'}")
        return line

    next_change()  # the count before
    delays = []
    for index in range(runs + 1):
        name = f"reg{index}"
        listener = lab.popen("cb", ["stdbuf", "-oL", str(binary), "listen", "--identity", name, "--edge-url", america.url, "--token",
                                    mint(binary, secret, name, DIAL_APP, "--incoming"), "--answer", "reject", "--calls", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = next(Stamped(listener.stdout).each(30), "")
        registered = time.time()
        if "registered" not in line:
            raise LabError(f"{name} did not register: {line.strip()}")
        seen = next_change()
        delay = max(0.0, (float(seen[0]) - registered) * 1000)
        if index == 0:
            print(f"the first registration since the edges started: routable from the other edge after {delay:.1f} ms")
        else:
            delays.append(delay)
        listener.terminate()
        listener.wait(timeout=10)
        next_change()  # its unregistration
    probe.terminate()
    return delays


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile: the smallest value with at least p % of the values at or below it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def main(calls: int = 50, registrations: int = 50, load_calls: int = 200, failover: bool = True, out: Path | None = None) -> int:
    from labkit import edges_failover, edges_load

    repo = Path(__file__).resolve().parents[2]
    binary = preflight_binary(repo)
    out = out or repo / ".build" / "lab-edges" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    killed: dict = {}
    rolled: dict = {}
    relay: dict = {}
    turned: dict = {}
    load: dict = {}
    try:
        with EdgesLab(out) as lab:
            europe = Edge(lab, binary, secret, "ea", "europe", EDGE_A)
            america = Edge(lab, binary, secret, "eb", "america", EDGE_B, extra=lab.america_turn_arguments())
            same = setup_times(lab, binary, secret, "ca", europe, europe, calls, "same") if calls else []
            cross = setup_times(lab, binary, secret, "cb", america, europe, calls, "cross") if calls else []
            delays = registration_delays(lab, binary, secret, america, europe, registrations) if registrations else []
            relay = edges_load.relay_latency(lab, binary, secret, europe, america)
            turned = edges_load.call_through_turn(lab, binary, secret, europe, america)
            if load_calls:
                load = edges_load.concurrent_calls(lab, binary, secret, europe, america, load_calls, seconds=20)
            if failover:
                killed = edges_failover.sigkill(lab, binary, secret, europe, america)
                america = Edge(lab, binary, secret, "eb", "america", EDGE_B, extra=america.extra, log_suffix="-after-kill")
                rolled = edges_failover.rolling_restart(lab, binary, secret, {"europe": europe, "america": america},
                                                        listeners_per_edge=5, calls_per_batch=6, call_seconds=8)
    except LabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    rtt = 2 * TRUNK_DELAY_MS
    checks = []
    print(f"two edges {rtt} ms RTT apart, clients {2 * CLIENT_DELAY_MS} ms RTT from theirs; figures in {out / 'edges.json'}")
    if same and cross:
        same_median, cross_median = statistics.median(same), statistics.median(cross)
        print(f"call setup on one edge: median {same_median:.1f} ms, p90 {percentile(same, 90):.1f} ms")
        print(f"call setup across edges: median {cross_median:.1f} ms, p90 {percentile(cross, 90):.1f} ms")
        checks.append((f"call setup across edges, median of {len(cross)}: {cross_median:.1f} ms ≤ on one edge {same_median:.1f} + "
                       f"inter-edge RTT {rtt} + 50 = {same_median + rtt + 50:.1f} ms", cross_median <= same_median + rtt + 50))
    if delays:
        p99 = percentile(delays, 99)
        print(f"registration to routable elsewhere: median {statistics.median(delays):.1f} ms, p99 {p99:.1f} ms, max {max(delays):.1f} ms")
        checks.append((f"a registration routable from the other edge, p99 of {len(delays)}: {p99:.1f} ms ≤ 100 ms", p99 <= 100))
    for path, figures in relay.items():
        print(f"relay at {path}: {figures['packets']} packets, added median {figures['medianMs']:.3f} ms, "
              f"p99 {figures['p99Ms']:.3f} ms, max {figures['maxMs']:.3f} ms")
    if relay:
        worst = max(figures["p99Ms"] for figures in relay.values())
        checks.append((f"each relay adds ≤ 1 ms per packet beyond the link (p99 at both edges, both directions): {worst:.3f} ms",
                       worst <= 1.0))
    if turned:
        print(f"a call across the edges whose callee reaches america only through coturn: bob's pair "
              f"{turned['bobLocalCandidate']}, {turned['bobPacketsReceived']} packets in his last second; "
              f"GET /v1/calls/{turned['callSid']}/events on america: {turned['events']} events from {', '.join(turned['edges'])} "
              f"({out / 'turn-call-events.json'})")
        checks.append((f"a call across the edges with its callee on TURN: relayed, media both ways, both edges' events "
                       f"from either: {turned['bobLocalCandidate']}, {turned['edges']}",
                       turned["bobLocalCandidate"] == "relay" and turned["bobPacketsReceived"] > 0
                       and turned["edges"] == ["america", "europe"]))
    if load:
        print(load["output"].rstrip())
        checks.append((f"{load['calls']} concurrent calls across the edges: {load['connected']} connected, loss "
                       f"{load['lossPercent']:.3f} % ≤ 0.1 %; europe {load['europeMicrosecondsPerPacket']:.1f} µs, america "
                       f"{load['americaMicrosecondsPerPacket']:.1f} µs of CPU per packet",
                       load["connected"] == load["calls"] and load["lossPercent"] <= 0.1))
    if killed:
        ended, gone = killed["callEndedAfterS"], killed["registrationsGoneAfterS"]
        print(f"america killed (SIGKILL) 3 s into a call from europe: the caller's call ended {ended} s later with error "
              f"{killed['callError']}; europe dropped america's registrations {gone} s after the kill")
        checks.append((f"the other party's call ends with an error within the consent timeout: {ended:.1f} s ≤ "
                       f"{edges_failover.CONSENT_TIMEOUT_S:.0f} s, error {killed['callError']}" if ended is not None else
                       "the other party's call ends with an error within the consent timeout: it never ended",
                       ended is not None and ended <= edges_failover.CONSENT_TIMEOUT_S and killed["callError"] is not None))
        checks.append((f"a dead edge's registrations gone within {edges_failover.REGISTRATIONS_GONE_S:.0f} s: "
                       f"{gone:.1f} s" if gone is not None else "a dead edge's registrations gone: never",
                       gone is not None and gone <= edges_failover.REGISTRATIONS_GONE_S))
    if rolled:
        for drain in rolled["drains"]:
            print(f"rolling restart: {drain['edge']} drained and exited {drain['drainedInS']:.1f} s after SIGTERM, "
                  f"served again {drain['restartedInS']:.1f} s later; its clients registered again within "
                  f"{drain['clientsRegisteredAgainInS']:.1f} s of the SIGTERM")
        print(f"rolling restart: {rolled['calls']} calls up at the SIGTERMs, {rolled['dropped']} dropped "
              f"{rolled['droppedErrors'] or ''}; {rolled['registeredAgain']} of {rolled['listeners']} listeners registered "
              f"again elsewhere, {rolled['registeredAtEnd']} registered at the end")
        checks.append((f"rolling restart: 0 of {rolled['calls']} calls (each within the drain limit) dropped: {rolled['dropped']}",
                       rolled["dropped"] == 0))
        checks.append((f"rolling restart: every client registered again: {rolled['registeredAtEnd']} of {rolled['listeners']}",
                       rolled["registeredAtEnd"] == rolled["listeners"]))
    figures = {"sameEdgeSetupMs": same, "crossEdgeSetupMs": cross, "registrationDelayMs": delays, "relay": relay, "turn": turned,
               "load": {k: v for k, v in load.items() if k != "output"}, "sigkill": killed, "rollingRestart": rolled}
    (out / "edges.json").write_text(json.dumps(figures))
    print("Targets:")
    for text, ok in checks:
        print(f"  {'ok  ' if ok else 'FAIL'} {text}")
    return 0 if all(ok for _, ok in checks) else 1
