"""The lab: network namespaces joined by veth pairs, addresses in 198.18.0.0/15 (RFC 2544's
benchmarking range), impairments in the router between the client and the edge, and packet
captures at both ends. Everything it makes is torn down on exit, on an exception and on
SIGINT/SIGTERM.

    client 198.18.1.2 ── c0 | r-c 198.18.1.1  router  198.18.2.1 r-e | e0 ── 198.18.2.2 edge

With `ice=True` (the ICE scenarios) the client sits on a LAN behind a NAT router (nftables
masquerade) whose public side takes 198.18.1.2, and a TURN host hangs off the router:

    client 198.18.0.2 ── l0 | n-l 198.18.0.1  nat  198.18.1.2 n-w | r-c 198.18.1.1  router ...
    router 198.18.3.1 r-t | t0 ── 198.18.3.2 turn
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from labkit.impair import DirectionSpec

SCRIPTS = Path(__file__).resolve().parent.parent

CLIENT_IP = "198.18.1.2"
ROUTER_CLIENT_IP = "198.18.1.1"
ROUTER_EDGE_IP = "198.18.2.1"
EDGE_IP = "198.18.2.2"
LAN_CLIENT_IP = "198.18.0.2"
NAT_LAN_IP = "198.18.0.1"
ROUTER_TURN_IP = "198.18.3.1"
TURN_IP = "198.18.3.2"
PREFIX = "pfl"


class LabError(Exception):
    """A lab step failed; the message says which command and why."""


def run(argv: list[str], check: bool = True, quiet: bool = False) -> subprocess.CompletedProcess:
    result = subprocess.run(argv, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise LabError(f"`{' '.join(argv)}` failed ({result.returncode}): {result.stderr.strip() or result.stdout.strip()}")
    return result


def require_tools(names: list[str]) -> None:
    missing = [n for n in names if shutil.which(n) is None]
    if missing:
        raise LabError(f"missing tools: {', '.join(missing)} (install them: see .ci/run)")


class Scoped:
    """Built on entering (`up`), torn down on leaving, on an exception and on SIGINT/SIGTERM (`down`)."""

    def __enter__(self):
        self._previous_handlers = {signum: signal.signal(signum, self._on_signal) for signum in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.up()
        except BaseException:
            self.down()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.down()
        for signum, handler in self._previous_handlers.items():
            signal.signal(signum, handler)

    @staticmethod
    def _on_signal(signum, _frame):
        # Unwinds through __exit__, which tears everything down.
        raise SystemExit(128 + signum)

    def up(self) -> None:
        raise NotImplementedError

    def down(self) -> None:
        raise NotImplementedError


def veth(tag: str, ns_a: str, dev_a: str, ns_b: str, dev_b: str) -> None:
    """A veth pair between two namespaces, named `dev_a` and `dev_b` there (made under names
    unique to the lab's `tag`, so that labs can run side by side)."""
    tmp_a, tmp_b = f"{tag[-6:]}{dev_a}"[:15], f"{tag[-6:]}{dev_b}"[:15]
    run(["ip", "link", "add", tmp_a, "type", "veth", "peer", "name", tmp_b])
    run(["ip", "link", "set", tmp_a, "netns", ns_a])
    run(["ip", "link", "set", tmp_b, "netns", ns_b])
    run(["ip", "-n", ns_a, "link", "set", tmp_a, "name", dev_a])
    run(["ip", "-n", ns_b, "link", "set", tmp_b, "name", dev_b])


def teardown(processes: list[subprocess.Popen], namespaces: list[str]) -> None:
    """Stops `processes` (SIGTERM, then SIGKILL after 3 s) and deletes `namespaces`, newest first,
    killing whatever still runs in them; both lists are emptied."""
    for p in processes:
        if p.poll() is None:
            p.terminate()
    for p in processes:
        try:
            p.wait(timeout=3)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    processes.clear()
    for ns in reversed(namespaces):
        # Killing every process left in the namespace lets it (and its veths) go.
        for pid in run(["ip", "netns", "pids", ns], check=False).stdout.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        run(["ip", "netns", "del", ns], check=False)
    namespaces.clear()


class Lab(Scoped):
    """One lab instance; names are unique per process so that labs can run side by side."""

    def __init__(self, workdir: str | None = None, tag: str | None = None, ice: bool = False):
        if os.geteuid() != 0:
            raise LabError("the lab needs root (network namespaces, nftables, tc, NFQUEUE)")
        require_tools(["ip", "iptables", "nft", "tc", "tcpdump"])
        self.tag = tag or str(os.getpid())
        self.ice = ice
        hosts = ("client", "router", "edge") + (("nat", "turn") if ice else ())
        self.ns = {h: f"{PREFIX}{self.tag}-{h}" for h in hosts}
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="preflight-lab-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.processes: list[subprocess.Popen] = []
        self.delayer: subprocess.Popen | None = None
        self.delayer_log: Path | None = None
        self.captures: dict[str, tuple[subprocess.Popen, Path]] = {}
        self.rate_kbit: float | None = None
        self._made: list[str] = []

    # -- lifecycle (Scoped) ----------------------------------------------------------------------

    def up(self) -> None:
        for ns in self.ns.values():
            run(["ip", "netns", "add", ns])
            self._made.append(ns)
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
        c, r, e = self.ns["client"], self.ns["router"], self.ns["edge"]
        # Without the NAT the client host itself is on the router's client side.
        outside = self.ns["nat"] if self.ice else c
        self._veth(outside, "n-w" if self.ice else "c0", r, "r-c")
        self._veth(e, "e0", r, "r-e")
        wan = "n-w" if self.ice else "c0"
        run(["ip", "-n", outside, "addr", "add", f"{CLIENT_IP}/24", "dev", wan])
        run(["ip", "-n", r, "addr", "add", f"{ROUTER_CLIENT_IP}/24", "dev", "r-c"])
        run(["ip", "-n", r, "addr", "add", f"{ROUTER_EDGE_IP}/24", "dev", "r-e"])
        run(["ip", "-n", e, "addr", "add", f"{EDGE_IP}/24", "dev", "e0"])
        for ns, dev in ((outside, wan), (r, "r-c"), (r, "r-e"), (e, "e0")):
            run(["ip", "-n", ns, "link", "set", dev, "up"])
        run(["ip", "-n", outside, "route", "add", "default", "via", ROUTER_CLIENT_IP])
        run(["ip", "-n", e, "route", "add", "default", "via", ROUTER_EDGE_IP])
        if self.ice:
            n, t = self.ns["nat"], self.ns["turn"]
            self._veth(c, "l0", n, "n-l")
            self._veth(t, "t0", r, "r-t")
            run(["ip", "-n", c, "addr", "add", f"{LAN_CLIENT_IP}/24", "dev", "l0"])
            run(["ip", "-n", n, "addr", "add", f"{NAT_LAN_IP}/24", "dev", "n-l"])
            run(["ip", "-n", r, "addr", "add", f"{ROUTER_TURN_IP}/24", "dev", "r-t"])
            run(["ip", "-n", t, "addr", "add", f"{TURN_IP}/24", "dev", "t0"])
            for ns, dev in ((c, "l0"), (n, "n-l"), (r, "r-t"), (t, "t0")):
                run(["ip", "-n", ns, "link", "set", dev, "up"])
            run(["ip", "-n", c, "route", "add", "default", "via", NAT_LAN_IP])
            run(["ip", "-n", t, "route", "add", "default", "via", ROUTER_TURN_IP])
            run(["ip", "netns", "exec", n, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
            # The NAT: everything leaving the public side takes its address (nftables masquerade).
            self.nft(n, "add table ip nat")
            self.nft(n, "add chain ip nat postrouting { type nat hook postrouting priority srcnat; }")
            self.nft(n, "add rule ip nat postrouting oifname n-w masquerade")
        run(["ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
        self._wait_reachable()

    @staticmethod
    def nft(ns: str, command: str) -> None:
        run(["ip", "netns", "exec", ns, "nft", command])

    def block(self, rules: list[str]) -> None:
        """Drops traffic the client side sends through the router: nft rules (match parts of
        `nft add rule`) in a forward chain for packets arriving on r-c, e.g. `ip daddr 198.18.2.2
        udp`. The rule counters are the test's evidence that the drop happened."""
        r = self.ns["router"]
        self.nft(r, "add table inet block")
        self.nft(r, "add chain inet block forward { type filter hook forward priority filter; }")
        for rule in rules:
            self.nft(r, f"add rule inet block forward iifname r-c {rule} counter drop")

    def unblock(self) -> None:
        run(["ip", "netns", "exec", self.ns["router"], "nft", "delete", "table", "inet", "block"], check=False)

    def blocked_packets(self) -> int:
        out = run(["ip", "netns", "exec", self.ns["router"], "nft", "-j", "list", "table", "inet", "block"], check=False).stdout
        if not out:
            return 0
        total = 0
        for item in json.loads(out).get("nftables", []):
            for expr in item.get("rule", {}).get("expr", []):
                if "counter" in expr:
                    total += expr["counter"]["packets"]
        return total

    def _veth(self, ns_a: str, dev_a: str, ns_b: str, dev_b: str) -> None:
        veth(self.tag, ns_a, dev_a, ns_b, dev_b)

    def _wait_reachable(self) -> None:
        # A UDP round trip through the router proves addresses, routes and forwarding.
        probe = (
            "import socket,sys;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.settimeout(0.2)\n"
            f"s.connect(('{EDGE_IP}',9))\n"
            "for _ in range(25):\n"
            "  s.send(b'x')\n"
            "  try: s.recv(1)\n"
            "  except ConnectionRefusedError: sys.exit(0)\n"
            "  except OSError: pass\n"
            "sys.exit(1)\n"
        )
        # Port 9 is closed on the edge: the ICMP port unreachable comes back through the router.
        s = self.popen("client", [sys.executable, "-c", probe])
        if s.wait(timeout=10) != 0:
            raise LabError("the edge host is not reachable from the client host through the router")
        self.processes.remove(s)

    def down(self) -> None:
        self.clear_impairments()
        self.stop_captures()
        teardown(self.processes, self._made)

    @staticmethod
    def sweep() -> list[str]:
        """Deletes every lab namespace left by a lab that could not clean up (e.g. SIGKILL)."""
        names = [line.split()[0] for line in run(["ip", "netns", "list"]).stdout.splitlines() if line.strip()]
        stale = [n for n in names if re.fullmatch(rf"{PREFIX}\d+-(client|router|edge|nat|turn|home|isp1|isp2)", n)]
        for ns in stale:
            for pid in run(["ip", "netns", "pids", ns], check=False).stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            run(["ip", "netns", "del", ns], check=False)
        return stale

    # -- processes -----------------------------------------------------------------------------

    def popen(self, host: str, argv: list[str], **kwargs) -> subprocess.Popen:
        """Starts `argv` on `host`; the lab stops it on teardown if it still runs."""
        env = dict(os.environ)
        env["PYTHONPATH"] = f"{SCRIPTS}{os.pathsep}{env.get('PYTHONPATH', '')}"
        kwargs.setdefault("env", env)
        p = subprocess.Popen(["ip", "netns", "exec", self.ns[host]] + argv, **kwargs)
        self.processes.append(p)
        return p

    def run_on(self, host: str, argv: list[str], timeout: float) -> subprocess.CompletedProcess:
        p = self.popen(host, argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            raise LabError(f"`{' '.join(argv)}` on {host} did not finish in {timeout} s; stderr: {err[-2000:]}")
        finally:
            if p in self.processes:
                self.processes.remove(p)
        return subprocess.CompletedProcess(argv, p.returncode, out, err)

    # -- impairments ---------------------------------------------------------------------------

    def impair(self, up: DirectionSpec, down: DirectionSpec, seed: int, rate_kbit: float | None = None,
               loss_engine: str = "delayer", edge_address: str | None = None) -> None:
        """Impairs UDP between client and edge in the router: the NFQUEUE delayer (delay, jitter,
        loss) per direction and, with `rate_kbit`, a tbf shaper on each of the router's egresses.
        With `loss_engine="nft"`, random loss is instead an nftables `numgen random` drop in the
        receiving host's input hook (ground truth: the rule's counter). With `edge_address`, only UDP
        to and from that address of the edge host is impaired (roaming's far edge)."""
        self.clear_impairments()
        r = self.ns["router"]
        config_path = self.workdir / "impair.json"
        use_nft = loss_engine == "nft"
        delayer_up, delayer_down = DirectionSpec(**up.to_dict()), DirectionSpec(**down.to_dict())
        if use_nft:
            delayer_up.loss = delayer_down.loss = 0
        config_path.write_text(json.dumps({"seed": seed, "up": delayer_up.to_dict(), "down": delayer_down.to_dict(),
                                           "queues": {"up": 1, "down": 2}}))
        self.delayer_log = self.workdir / "delayer.csv"
        self.delayer = self.popen("router", [sys.executable, "-m", "labkit.delayer", "--config", str(config_path),
                                             "--log", str(self.delayer_log)], stdout=subprocess.PIPE, text=True)
        assert self.delayer.stdout is not None
        line = self.delayer.stdout.readline()
        if line.strip() != "ready":
            raise LabError(f"the delayer did not start (exit {self.delayer.poll()}); is netfilterqueue installed?")
        # Without --queue-bypass a dead delayer drops everything: an impairment never silently vanishes.
        to_edge = ["-d", edge_address] if edge_address else []
        from_edge = ["-s", edge_address] if edge_address else []
        run(["ip", "netns", "exec", r, "iptables", "-A", "FORWARD", "-i", "r-c", "-p", "udp", *to_edge, "-j", "NFQUEUE", "--queue-num", "1"])
        run(["ip", "netns", "exec", r, "iptables", "-A", "FORWARD", "-i", "r-e", "-p", "udp", *from_edge, "-j", "NFQUEUE", "--queue-num", "2"])
        if self.ice:
            # UDP from the TURN host (to the edge or back to the client) takes the downlink spec.
            run(["ip", "netns", "exec", r, "iptables", "-A", "FORWARD", "-i", "r-t", "-p", "udp", "-j", "NFQUEUE", "--queue-num", "2"])
        if use_nft:
            for host, spec in (("edge", up), ("client", down)):
                if spec.loss > 0:
                    threshold = int(round(spec.loss * 1_000_000))
                    ns = self.ns[host]
                    run(["ip", "netns", "exec", ns, "nft", "add", "table", "inet", "preflightlab"])
                    run(["ip", "netns", "exec", ns, "nft", "add chain inet preflightlab input { type filter hook input priority 0; }"])
                    run(["ip", "netns", "exec", ns, "nft",
                         f"add rule inet preflightlab input meta l4proto udp numgen random mod 1000000 < {threshold} counter drop"])
        if rate_kbit:
            self.rate_kbit = rate_kbit
            for dev in ("r-e", "r-c"):
                run(["ip", "netns", "exec", r, "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", f"{rate_kbit}kbit",
                     "burst", "1600", "latency", "200ms"])

    def shape(self, up_kbit: float, down_kbit: float, burst_up: int, burst_down: int, latency_ms: int = 100) -> None:
        """tbf on the router's egresses with a rate and bucket per direction (replacing any root
        qdisc there): up toward the edge (r-e), down toward the client (r-c)."""
        r = self.ns["router"]
        for dev, rate, burst in (("r-e", up_kbit, burst_up), ("r-c", down_kbit, burst_down)):
            run(["ip", "netns", "exec", r, "tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", f"{rate}kbit",
                 "burst", str(burst), "latency", f"{latency_ms}ms"])
        self.rate_kbit = max(up_kbit, down_kbit)

    def shaper_bytes(self) -> dict[str, dict[str, int]]:
        """tbf's counters per direction with bytes: {"up": {"bytes", "packets", "dropped"}, "down": …}."""
        stats = {}
        for direction, dev in (("up", "r-e"), ("down", "r-c")):
            text = run(["ip", "netns", "exec", self.ns["router"], "tc", "-s", "qdisc", "show", "dev", dev], check=False).stdout
            m = re.search(r"Sent (\d+) bytes (\d+) pkt \(dropped (\d+)", text)
            if m:
                stats[direction] = {"bytes": int(m.group(1)), "packets": int(m.group(2)), "dropped": int(m.group(3))}
        return stats

    def nft_drops(self) -> dict[str, int]:
        """Packets dropped by the nftables loss rules: {"up": n, "down": n}."""
        out = {}
        for direction, host in (("up", "edge"), ("down", "client")):
            text = run(["ip", "netns", "exec", self.ns[host], "nft", "list", "table", "inet", "preflightlab"], check=False).stdout
            m = re.search(r"counter packets (\d+)", text)
            out[direction] = int(m.group(1)) if m else 0
        return out

    def shaper_stats(self) -> dict[str, dict[str, int]]:
        """tbf's own counts per direction (sent, dropped, overlimits)."""
        stats = {}
        for direction, dev in (("up", "r-e"), ("down", "r-c")):
            text = run(["ip", "netns", "exec", self.ns["router"], "tc", "-s", "qdisc", "show", "dev", dev], check=False).stdout
            m = re.search(r"Sent \d+ bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)", text)
            if m:
                stats[direction] = {"sent": int(m.group(1)), "dropped": int(m.group(2)), "overlimits": int(m.group(3))}
        return stats

    def clear_impairments(self) -> Path | None:
        """Removes every impairment; returns the delayer's log, written as it stops."""
        log = None
        if self.delayer is not None:
            if self.delayer.poll() is None:
                self.delayer.send_signal(signal.SIGTERM)
            try:
                self.delayer.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.delayer.kill()
                self.delayer.wait()
            if self.delayer in self.processes:
                self.processes.remove(self.delayer)
            self.delayer = None
            log = self.delayer_log
        if self._made:
            r = self.ns["router"]
            run(["ip", "netns", "exec", r, "iptables", "-F", "FORWARD"], check=False)
            for dev in ("r-e", "r-c"):
                run(["ip", "netns", "exec", r, "tc", "qdisc", "del", "dev", dev, "root"], check=False)
            for host in ("edge", "client"):
                run(["ip", "netns", "exec", self.ns[host], "nft", "delete", "table", "inet", "preflightlab"], check=False)
        self.rate_kbit = None
        return log

    # -- captures ------------------------------------------------------------------------------

    def start_captures(self, label: str) -> None:
        """Captures UDP on the client's and the edge's interface, nanosecond kernel timestamps."""
        self.stop_captures()
        for host, dev in (("client", "c0"), ("edge", "e0")):
            path = self.workdir / f"{label}-{host}.pcap"
            p = self.popen(host, ["tcpdump", "-i", dev, "-w", str(path), "-U", "--immediate-mode", "-n", "-Z", "root", "-s", "2048",
                                  "--time-stamp-precision=nano", "udp"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            self.captures[host] = (p, path)
        # tcpdump says "listening on" once the capture is open.
        for host, (p, _) in self.captures.items():
            assert p.stderr is not None
            line = p.stderr.readline()
            if "listening" not in line:
                raise LabError(f"tcpdump on {host} did not start: {line.strip()}")

    def stop_captures(self) -> dict[str, Path]:
        paths = {}
        for host, (p, path) in self.captures.items():
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            if p in self.processes:
                self.processes.remove(p)
            paths[host] = path
        self.captures.clear()
        return paths
