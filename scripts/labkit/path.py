"""`lab path` (issue 37): a chain of namespaces, impairments placed on one link at a time, routers
that rate-limit their ICMP or send none, and for each run the path diagnosis of a preflight test
(`preflight run --diagnose-path`) beside mtr's report of the same path (docs/lab.md, "Path
diagnosis").

    client 198.18.40.2 ─ L1 ─ .40.1 home (NAT) .41.2 ─ L2 ─ .41.1 isp1 .42.1 ─ L3 ─ .42.2 isp2 .43.1 ─ L4 ─ .43.2 edge

The home LAN is 198.18.40.0/24 (the lab's addresses stay in RFC 2544's range, so the test is told
it is private with `--private-network`), and the client's interface is called Wi-Fi
(`--network-type c0=wifi`). Seen from the client: hop 1 home (your Wi-Fi: L1), hop 2 isp1 and hop 3
isp2 (the access network: L2, L3), hop 4 the edge (the way to the edge: L4). A link is impaired in
the namespace at its far end (L1 at the client's), both ways, for UDP and ICMP alike (the NFQUEUE delayer in mangle
PREROUTING and POSTROUTING), so a router's own replies cross it as packets do; the delayer's log
is the truth of what each of the test's packets met.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from labkit.impair import DirectionSpec
from labkit.lab import PREFIX, SCRIPTS, LabError, Scoped, run, teardown, veth
from labkit.roaming import serve
from labkit.path_rows import Scenario, judge, mtr_worst, table, targets, truth_from_log

HOSTS = ("client", "home", "isp1", "isp2", "edge")
EDGE_IP = "198.18.43.2"
LAN = "198.18.40.0/24"
# link → (the namespace that impairs it, its interface on the link, whether that end is the client).
# L1 is impaired at the client's end: on the home router, a queued first packet of a connection
# that then expires there (TTL 1) got no ICMP error back (observed; the NAT's conntrack entry,
# not yet confirmed, is the likely cause), which lost the first hop-1 probe of every run and all
# of mtr's (one new connection per probe).
LINKS = {1: ("client", "c0", True), 2: ("isp1", "i1-h", False), 3: ("isp2", "i2-1", False), 4: ("edge", "e0", False)}


SCENARIOS = [
    Scenario("clean"),
    Scenario("ratelimit", rate_limited="isp1"),
    Scenario("silent", silent="isp2"),
    Scenario("wifi-loss-5", link=1, spec={"loss": 0.05}),
    Scenario("wifi-loss-2", link=1, spec={"loss": 0.02}),
    Scenario("access-loss-5", link=3, spec={"loss": 0.05}),
    Scenario("edge-loss-10-ratelimit", link=4, spec={"loss": 0.10}, rate_limited="isp1"),
    Scenario("wifi-loss-5-silent", link=1, spec={"loss": 0.05}, silent="isp2"),
    Scenario("wifi-jitter-10", link=1, spec={"delay": 10, "jitter": 10}),
    Scenario("access-jitter-20", link=2, spec={"delay": 20, "jitter": 20}),
    Scenario("edge-jitter-50", link=4, spec={"delay": 50, "jitter": 50}),
]


class PathLab(Scoped):
    """The chain; torn down on exit, on an exception and on SIGINT/SIGTERM."""

    def __init__(self, workdir: Path):
        self.tag = str(os.getpid())
        self.ns = {h: f"{PREFIX}{self.tag}-{h}" for h in HOSTS}
        self.workdir = workdir
        self.processes: list[subprocess.Popen] = []
        self.delayer: subprocess.Popen | None = None
        self.impaired: tuple[str, str] | None = None
        self._made: list[str] = []

    def exec(self, host: str, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return run(["ip", "netns", "exec", self.ns[host], *argv], check=check)

    def up(self) -> None:
        for ns in self.ns.values():
            run(["ip", "netns", "add", ns])
            self._made.append(ns)
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
        wiring = [  # (host, dev, address) pairs of each link
            (("client", "c0", "198.18.40.2"), ("home", "h-lan", "198.18.40.1")),
            (("home", "h-wan", "198.18.41.2"), ("isp1", "i1-h", "198.18.41.1")),
            (("isp1", "i1-2", "198.18.42.1"), ("isp2", "i2-1", "198.18.42.2")),
            (("isp2", "i2-e", "198.18.43.1"), ("edge", "e0", EDGE_IP)),
        ]
        for (a, dev_a, ip_a), (b, dev_b, ip_b) in wiring:
            veth(self.tag, self.ns[a], dev_a, self.ns[b], dev_b)
            for host, dev, ip in ((a, dev_a, ip_a), (b, dev_b, ip_b)):
                run(["ip", "-n", self.ns[host], "addr", "add", f"{ip}/24", "dev", dev])
                run(["ip", "-n", self.ns[host], "link", "set", dev, "up"])
        for host, via in (("client", "198.18.40.1"), ("home", "198.18.41.1"), ("isp2", "198.18.42.1"), ("edge", "198.18.43.1")):
            run(["ip", "-n", self.ns[host], "route", "add", "default", "via", via])
        run(["ip", "-n", self.ns["isp1"], "route", "add", "198.18.43.0/24", "via", "198.18.42.2"])
        for host in ("home", "isp1", "isp2"):
            self.exec(host, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        # The home router's NAT: everything leaving its public side takes its address.
        self.exec("home", "nft", "add table ip nat")
        self.exec("home", "nft", "add chain ip nat postrouting { type nat hook postrouting priority srcnat; }")
        self.exec("home", "nft", "add rule ip nat postrouting oifname h-wan masquerade")

    def down(self) -> None:
        self.clear()
        teardown(self.processes, self._made)

    def popen(self, host: str, argv: list[str], **kwargs) -> subprocess.Popen:
        env = dict(os.environ)
        env["PYTHONPATH"] = f"{SCRIPTS}"
        p = subprocess.Popen(["ip", "netns", "exec", self.ns[host], *argv], env=env, **kwargs)
        self.processes.append(p)
        return p

    # -- a scenario's conditions ---------------------------------------------------------------

    def apply(self, scenario: Scenario, seed: int) -> None:
        self.clear()
        if scenario.rate_limited:
            # 1 ICMP error per 5 s to a destination after a burst of 6 (the kernel's token bucket).
            self.exec(scenario.rate_limited, "sysctl", "-qw", "net.ipv4.icmp_ratelimit=5000")
        if scenario.silent:
            host = scenario.silent
            self.exec(host, "nft", "add table inet pathlab")
            self.exec(host, "nft", "add chain inet pathlab out { type filter hook output priority 0; }")
            self.exec(host, "nft", "add rule inet pathlab out icmp type time-exceeded drop")
        if scenario.link is None:
            return
        host, dev, near = LINKS[scenario.link]
        spec = DirectionSpec.from_dict(scenario.spec)
        config = self.workdir / "impair.json"
        config.write_text(json.dumps({"seed": seed, "up": spec.to_dict(), "down": spec.to_dict(), "queues": {"up": 1, "down": 2}}))
        self.delayer_log = self.workdir / "delayer.csv"
        self.delayer = self.popen(host, [sys.executable, "-m", "labkit.delayer", "--config", str(config), "--log", str(self.delayer_log)],
                                  stdout=subprocess.PIPE, text=True)
        assert self.delayer.stdout is not None
        if self.delayer.stdout.readline().strip() != "ready":
            raise LabError("the delayer did not start; is netfilterqueue installed?")
        # Queue 1 is the way to the edge: what arrives at the far end, or leaves the client.
        up, down = ("POSTROUTING", "PREROUTING") if near else ("PREROUTING", "POSTROUTING")
        for proto in ("udp", "icmp"):
            for chain, queue in ((up, "1"), (down, "2")):
                way = "-o" if chain == "POSTROUTING" else "-i"
                self.exec(host, "iptables", "-t", "mangle", "-A", chain, way, dev, "-p", proto, "-j", "NFQUEUE", "--queue-num", queue)
        self.impaired = (host, dev)

    def clear(self) -> Path | None:
        """Removes every condition; returns the delayer's log when there was one."""
        log = None
        if self.delayer is not None:
            self.delayer.send_signal(signal.SIGTERM)
            try:
                self.delayer.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.delayer.kill()
            self.processes.remove(self.delayer)
            self.delayer = None
            log = self.delayer_log
        if self._made:
            for host in ("client", "home", "isp1", "isp2", "edge"):
                self.exec(host, "iptables", "-t", "mangle", "-F", check=False)
                self.exec(host, "nft", "delete table inet pathlab", check=False)
                self.exec(host, "sysctl", "-qw", "net.ipv4.icmp_ratelimit=1000", check=False)
        return log


# -- the run ---------------------------------------------------------------------------------------

def one_run(lab: PathLab, binary: Path, url: str, token: str, scenario: Scenario, seed: int, duration: int, out: Path) -> dict:
    lab.apply(scenario, seed)
    stem = out / f"{scenario.name}-{seed}"
    test_argv = [str(binary), "run", "--edge-url", url, "--token", token, "--duration", str(duration), "--json", "--no-upload",
                 "--diagnose-path", "--private-network", LAN, "--network-type", "c0=wifi", "--html", str(stem.with_suffix(".html"))]
    mtr_argv = ["mtr", "--json", "-n", "-u", "-c", str(duration * 2), "-i", "0.5", EDGE_IP]
    # mtr runs after the test, under the same conditions: at the same time, its probes would spend
    # the routers' ICMP allowance for this source and the diagnosis would see mtr's rate limiting.
    # --network-type names the client's interface Wi-Fi for its host candidates and its network
    # follower alike.
    test_result = subprocess.run(["ip", "netns", "exec", lab.ns["client"], *test_argv], capture_output=True, text=True, timeout=120)
    mtr_result = subprocess.run(["ip", "netns", "exec", lab.ns["client"], *mtr_argv], capture_output=True, text=True, timeout=120)
    log = lab.clear()
    stem.with_suffix(".json").write_text(test_result.stdout)
    stem.with_suffix(".log").write_text(test_result.stderr)
    stem.with_suffix(".mtr.json").write_text(mtr_result.stdout)
    if log is not None and log.exists():
        log.rename(stem.with_suffix(".delayer.csv"))
    return judge_saved(scenario, seed, stem, test_result.returncode)


def judge_saved(scenario: Scenario, seed: int, stem: Path, test_exit: int) -> dict:
    """One run's row from what it left in the output directory: the test's report, the
    delayer's log (the truth) and mtr's report."""
    delayer = stem.with_suffix(".delayer.csv")
    truth = truth_from_log(delayer.read_text()) if delayer.exists() else None
    stdout = stem.with_suffix(".json").read_text() if stem.with_suffix(".json").exists() else ""
    try:
        report = json.loads(stdout)
    except json.JSONDecodeError:
        log = stem.with_suffix(".log").read_text() if stem.with_suffix(".log").exists() else ""
        report = {"pathDiagnosis": {"error": {"code": 0, "message": f"the test printed no report: {log[-300:]}"}}}
    try:
        mtr_report = mtr_worst(json.loads(stem.with_suffix(".mtr.json").read_text()))
    except (json.JSONDecodeError, FileNotFoundError):
        mtr_report = None
    row = judge(scenario, report, truth, mtr_report)
    row["seed"] = seed
    row["test_exit"] = test_exit
    return row


def rejudge(out: Path) -> int:
    """The table and the targets of the runs saved in `out`, judged again by the current rules
    (`scripts/lab path --judge DIR`); no namespace is made."""
    rows = []
    for scenario in SCENARIOS:
        seed = 1
        while (stem := out / f"{scenario.name}-{seed}").with_suffix(".json").exists():
            rows.append(judge_saved(scenario, seed, stem, 0 if stem.with_suffix(".json").read_text().strip() else 1))
            seed += 1
    if not rows:
        print(f"no runs in {out}", file=sys.stderr)
        return 2
    print(table(rows))
    verdict, lines = targets(rows)
    print("\n".join(lines))
    return 0 if verdict else 1


def main(seeds: int = 5, only: list[str] | None = None, duration: int = 10, out: Path | None = None) -> int:
    from labkit.bench import APP, preflight_binary
    from labkit.call import mint
    repo = Path(__file__).resolve().parents[2]
    binary = preflight_binary(repo)
    out = out or repo / ".build" / "lab-path" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    scenarios = [s for s in SCENARIOS if not only or s.name in only]
    secret = secrets.token_hex(32)
    rows: list[dict] = []
    try:
        with PathLab(out) as lab:
            url = serve(lab, binary, secret, EDGE_IP, "edge", out)
            token = mint(binary, secret, "lab", APP)
            for scenario in scenarios:
                for seed in range(1, seeds + 1):
                    row = one_run(lab, binary, url, token, scenario, seed, duration, out)
                    rows.append(row)
                    print(f"{scenario.name} seed {seed}: blamed {row['blamed'] or '-'}, suspects {row['suspects'] or '-'}, "
                          f"mtr worst {row.get('mtr_worst')}", file=sys.stderr, flush=True)
    except LabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    (out / "path.json").write_text(json.dumps(rows, indent=1))
    print(table(rows))
    verdict, lines = targets(rows)
    print("\n".join(lines))
    print(f"runs, reports and delayer logs in {out}")
    return 0 if verdict else 1
