"""`lab handover`: calls that live through network changes (the TVOCall reference's preferred network switch). The client namespace has
two or three uplinks (veth pairs `cell0`, `wifi0`, `eth0` on the client side), each its own
subnet with its own delay and loss (the NFQUEUE delayer, one per uplink), each leaving the
router with a public address of its own (nft snat: a NAT per network) toward the edge
namespace, where the edge (`preflight serve`) and the callee (`preflight listen --answer auto`)
run. A caller (`preflight call --to client:bob --json`, `PREFLIGHT_NETWORK_TYPES` marking the
veths cellular/Wi-Fi/Ethernet) calls while the script takes networks away and brings them back;
the captures (each uplink's router side, the edge's interface, the whole client namespace) and
the caller's JSON give the switch time, the longest audio gap each way, the RTP packets lost,
and whether the call dropped. See docs/lab.md, "Handover".

    client 198.18.20.2 cell0 ─┐                                     ┌ snat 198.18.2.20
    client 198.18.21.2 wifi0 ─┼─ r-<uplink> 198.18.2x.1  router  r-e ┼ snat 198.18.2.21 ── e0 198.18.2.2 edge
    client 198.18.22.2 eth0  ─┘                                     └ snat 198.18.2.22

A network goes away as a device does when it is switched off: `ip link set dev X down` (the
kernel sends RTM_NEWLINK without IFF_UP and deletes every route through X), then its address
is removed (RTM_DELADDR). It appears as `ip link set dev X up` (RTM_NEWLINK; the peer is up,
so the carrier comes at once), its address added (RTM_NEWADDR) and its routes (RTM_NEWROUTE):
a default route in the main table with the network's metric, and one in its own table that an
`ip rule from <its address>` selects, so a packet from its address always leaves by it. The
four steps run in one `ip -batch`; the event's time is the kernel's, read back from
`ip -ts monitor` (CLOCK_REALTIME, the clock of the pcap timestamps), or the script's own clock
just before the batch when the monitor did not see it.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import os
import re
import secrets
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

from labkit import truth as T
from labkit.lab import EDGE_IP, ROUTER_EDGE_IP, Lab, LabError, run

NETWORK_TYPES = "cell0=cellular,wifi0=wifi,eth0=ethernet"
CONSENT_TIMEOUT_S = 30  # CallOptions.consentTimeout's default
EXPECTED_DROP_CODE = 53405  # mediaConnectionFailed (docs/errors.md): consent expired


# -- pure parts: packets, gaps, losses, switches, statistics ---------------------------------------

def rtp_id(payload: bytes) -> tuple[int, int] | None:
    """(SSRC, sequence number) of an RTP packet, or None when it is too short to be one."""
    if len(payload) < 12 or payload[0] >> 6 != 2:
        return None
    seq, = struct.unpack("!H", payload[2:4])
    ssrc, = struct.unpack("!I", payload[8:12])
    return ssrc, seq


def unwrap(seqs: list[int]) -> list[int]:
    """16-bit sequence numbers (in arrival order) as integers that keep counting past 65535: each
    is placed nearest to the highest one seen so far (RFC 3550 A.1's idea)."""
    out: list[int] = []
    highest = None
    for s in seqs:
        if highest is None:
            value = s
        else:
            base = highest - (highest & 0xFFFF)
            candidates = (base - 65536 + s, base + s, base + 65536 + s)
            value = min(candidates, key=lambda c: abs(c - highest))
        out.append(value)
        highest = value if highest is None else max(highest, value)
    return out


def missing_sequences(received: list[tuple[int, int, int]], window: tuple[int, int] | None = None) -> set[tuple[int, int]]:
    """The RTP packets missing from a stream as received: `received` is (time_ns, ssrc, seq) in
    arrival order; for each SSRC every unwrapped sequence number between the lowest and the
    highest received (within `window` = (start_ns, end_ns) when given) that never arrived
    (duplicates and reordering count nothing). Returns {(ssrc, seq & 0xFFFF)}."""
    by_ssrc: dict[int, list[tuple[int, int]]] = {}
    for t, ssrc, seq in received:
        by_ssrc.setdefault(ssrc, []).append((t, seq))
    missing: set[tuple[int, int]] = set()
    for ssrc, rows in by_ssrc.items():
        values = unwrap([seq for _, seq in rows])
        inside = [v for (t, _), v in zip(rows, values) if window is None or window[0] <= t <= window[1]]
        if not inside:
            continue
        have = set(values)
        for v in range(min(inside), max(inside) + 1):
            if v not in have:
                missing.add((ssrc, v & 0xFFFF))
    return missing


def packets_lost(received: list[tuple[int, int, int]], dropped_on_purpose: set[tuple[int, int]],
                 window: tuple[int, int] | None = None) -> int:
    """Missing RTP packets (`missing_sequences`) less those the lab's impairment dropped on purpose."""
    return len(missing_sequences(received, window) - dropped_on_purpose)


STUN_COOKIE = 0x2112A442
USE_CANDIDATE = 0x0025


def stun_message(payload: bytes) -> tuple[int, bytes, bool] | None:
    """(message type, transaction id, whether it carries USE-CANDIDATE) of a STUN message, or None."""
    if len(payload) < 20 or payload[0] & 0xC0 or struct.unpack("!I", payload[4:8])[0] != STUN_COOKIE:
        return None
    kind, length = struct.unpack("!HH", payload[:4])
    use_candidate = False
    offset, end = 20, min(len(payload), 20 + length)
    while offset + 4 <= end:
        attribute, size = struct.unpack("!HH", payload[offset:offset + 4])
        use_candidate = use_candidate or attribute == USE_CANDIDATE
        offset += 4 + (size + 3) // 4 * 4
    return kind, bytes(payload[8:20]), use_candidate


def edge_verifications(datagrams: list, edge_ip: str) -> tuple[dict[tuple[str, int], int], list[tuple[int, tuple[str, int]]]]:
    """What the ICE-lite edge made of the client's checks, from its capture (`UDPDatagram`s):
    each client address it verified (answered a Binding request from with a success response)
    and when first, and each nomination (a success answering a request with USE-CANDIDATE: the
    edge's media goes there from then on), in time order. Addresses are (ip, port)."""
    requests: dict[bytes, tuple[tuple[str, int], bool]] = {}
    verified: dict[tuple[str, int], int] = {}
    nominations: list[tuple[int, tuple[str, int]]] = []
    for d in sorted(datagrams, key=lambda d: d.time_ns):
        m = stun_message(d.payload)
        if m is None:
            continue
        kind, txid, use_candidate = m
        if kind == 0x0001 and d.dst == edge_ip:
            requests[txid] = ((d.src, d.sport), use_candidate)
        elif kind == 0x0101 and d.src == edge_ip and txid in requests:
            address, nominating = requests[txid]
            if (d.dst, d.dport) != address:
                continue
            verified.setdefault(address, d.time_ns)
            if nominating:
                nominations.append((d.time_ns, address))
    return verified, nominations


def accepted_by_edge(datagrams: list, verified: dict[tuple[str, int], int]) -> list:
    """The datagrams that arrived from an address the edge had verified by then: the rest it drops."""
    return [d for d in datagrams if verified.get((d.src, d.sport), 2**63) <= d.time_ns]


def longest_gap_ms(times_ns: list[int], start_ns: int, end_ns: int) -> float:
    """The longest time without a packet in [start_ns, end_ns]: between consecutive arrivals, and
    from the window's start to the first and from the last to its end (a stream that dies counts
    until the window closes). The whole window when nothing arrived in it."""
    if end_ns <= start_ns:
        return math.nan
    inside = sorted(t for t in times_ns if start_ns <= t <= end_ns)
    edges = [start_ns] + inside + [end_ns]
    return max(b - a for a, b in zip(edges, edges[1:])) / 1e6


RECENT_NS = 500_000_000  # media "flows" on an uplink when its last packet came less than this ago


def carrier_before(event_ns: int, by_uplink: dict[str, list[int]], within_ns: int = RECENT_NS) -> str | None:
    """The uplink that carried the last packet before `event_ns`, if that packet came within
    `within_ns` of it (None when no media was flowing then)."""
    best, best_t = None, None
    for name, times in by_uplink.items():
        before = [t for t in times if event_ns - within_ns <= t < event_ns]
        if before and (best_t is None or max(before) > best_t):
            best, best_t = name, max(before)
    return best


def switch_time(event_ns: int, until_ns: int, target: str, by_uplink: dict[str, list[int]]) -> dict:
    """How the media reached `target` after a network event: {"ms": time from the event to the
    first packet on `target` in [event_ns, until_ns), or None when none came; "already": the media
    was flowing on `target` just before the event (no switch was needed)}."""
    first = min((t for t in by_uplink.get(target, []) if event_ns <= t < until_ns), default=None)
    return {"ms": None if first is None else (first - event_ns) / 1e6,
            "already": carrier_before(event_ns, by_uplink) == target}


def both_ways(switch: dict) -> float | None:
    """When audio flowed both ways on the target after an event: the later of the caller's first
    packet the edge took by it ("ms") and the edge's first packet to the client by it ("down_ms");
    None when either never came."""
    if switch.get("ms") is None or switch.get("down_ms") is None:
        return None
    return max(switch["ms"], switch["down_ms"])


def median(values: list[float]) -> float:
    v = sorted(x for x in values if x is not None and not math.isnan(x))
    if not v:
        return math.nan
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


def p95(values: list[float]) -> float:
    """The 95th percentile, nearest rank (the smallest value with at least 95 % at or below it)."""
    v = sorted(x for x in values if x is not None and not math.isnan(x))
    if not v:
        return math.nan
    return v[max(0, math.ceil(0.95 * len(v)) - 1)]


def call_dropped(outcome: dict | None, connected_ns: int | None, ended_ns: int | None, duration_s: float) -> bool:
    """Whether the call dropped: no outcome, an error, a failure to connect, or an end more than a
    second before its duration was up."""
    if outcome is None or connected_ns is None:
        return True
    if outcome.get("error") is not None:
        return True
    if "call:didFailToConnectWithError:" in (outcome.get("callbacks") or []):
        return True
    if ended_ns is not None and (ended_ns - connected_ns) / 1e9 < duration_s - 1:
        return True
    return False


TARGETS = {
    "a": "on Wi-Fi ≤ 1 s after it appears, 0 lost, longest gap ≤ 60 ms",
    "b": "audio back on cellular ≤ 1.5 s after link down, 0 dropped",
    "c": "0 dropped, every switch made",
    "d": "back on Wi-Fi ≤ 1 s after its return, 0 dropped",
    "e": f"disconnected with {EXPECTED_DROP_CODE}",
}


def run_meets_target(scenario: str, run: dict) -> bool:
    """Whether one run's figures meet its scenario's target (TARGETS). A switch's time here is
    when audio flowed both ways on the new network (`both_ways`): the caller's audio reaching the
    edge alone is not a call that works."""
    switches = [s for s in run.get("switches", []) if s.get("target")]
    times = [both_ways(s) for s in switches]
    dropped = run.get("dropped", True)
    if scenario == "a":
        return (bool(times) and all(t is not None and t <= 1000 for t in times)
                and run.get("lost_up") == 0 and run.get("lost_down") == 0
                and _le(run.get("gap_up_ms"), 60) and _le(run.get("gap_down_ms"), 60))
    if scenario == "b":
        return bool(times) and all(t is not None and t <= 1500 for t in times) and not dropped
    if scenario == "c":
        return not dropped and bool(switches) and all(both_ways(s) is not None or s.get("already") for s in switches)
    if scenario == "d":
        return bool(times) and all(t is not None and t <= 1000 for t in times) and not dropped
    if scenario == "e":
        return dropped and run.get("error_code") == EXPECTED_DROP_CODE
    return False


def _le(value, bound) -> bool:
    return value is not None and not math.isnan(value) and value <= bound


def summarize(scenario: str, runs: list[dict]) -> dict:
    """One scenario's runs in figures: median and p95 of the switch times (every event that has a
    target, across runs) and of each run's longest gap each way, the packets lost in all, the
    calls dropped, the switches seen, the error codes, and the runs that met the target."""
    switches = [s for r in runs for s in r.get("switches", []) if s.get("target")]
    times = [s["ms"] for s in switches if s["ms"] is not None]
    both = [both_ways(s) for s in switches]
    gaps_up = [r.get("gap_up_ms") for r in runs]
    gaps_down = [r.get("gap_down_ms") for r in runs]
    return {
        "scenario": scenario, "runs": len(runs),
        "switch_median_ms": median(times), "switch_p95_ms": p95(times),
        "switches_seen": len(times), "switches_expected": len(switches),
        "both_ways_median_ms": median(both), "both_ways_p95_ms": p95(both),
        "both_ways_seen": sum(1 for b in both if b is not None),
        "gap_up_median_ms": median(gaps_up), "gap_up_p95_ms": p95(gaps_up),
        "gap_down_median_ms": median(gaps_down), "gap_down_p95_ms": p95(gaps_down),
        "lost_up": sum(r.get("lost_up") or 0 for r in runs), "lost_down": sum(r.get("lost_down") or 0 for r in runs),
        "dropped": sum(1 for r in runs if r.get("dropped", True)),
        "error_codes": sorted({r["error_code"] for r in runs if r.get("error_code") is not None}),
        "failed_runs": sum(1 for r in runs if r.get("failure")),
        "met": sum(1 for r in runs if run_meets_target(scenario, r)),
        "target": TARGETS.get(scenario, ""),
    }


def _ms(v) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.0f}"


def format_table(summaries: list[dict]) -> str:
    """The benchmark's table: a row per scenario beside its target."""
    lines = ["| scenario | runs | switch ms median / p95 (seen) | both ways ms median / p95 (seen) | gap up ms median / p95 "
             "| gap down ms median / p95 | lost up / down | dropped | errors | target | met |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        lines.append(
            f"| {s['scenario']} | {s['runs']} | {_ms(s['switch_median_ms'])} / {_ms(s['switch_p95_ms'])} "
            f"({s['switches_seen']}/{s['switches_expected']}) | {_ms(s['both_ways_median_ms'])} / {_ms(s['both_ways_p95_ms'])} "
            f"({s['both_ways_seen']}/{s['switches_expected']}) | {_ms(s['gap_up_median_ms'])} / {_ms(s['gap_up_p95_ms'])} "
            f"| {_ms(s['gap_down_median_ms'])} / {_ms(s['gap_down_p95_ms'])} | {s['lost_up']} / {s['lost_down']} "
            f"| {s['dropped']} | {', '.join(map(str, s['error_codes'])) or '–'} | {s['target']} | {s['met']}/{s['runs']} |")
    return "\n".join(lines)


def parse_monitor(text: str) -> list[tuple[int, str]]:
    """`ip -ts monitor` lines as (CLOCK_REALTIME ns, the message): `[2024-05-01T10:00:00.123456] …`
    in local time."""
    out = []
    for line in text.splitlines():
        m = re.match(r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{6})\]\s*(.*)", line)
        if not m:
            continue
        stamp = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")
        out.append((int(stamp.timestamp()) * 1_000_000_000 + int(m.group(2)) * 1000, m.group(3)))
    return out


def kernel_time(monitor: list[tuple[int, str]], device: str, after_ns: int, before_ns: int) -> int | None:
    """The first netlink message about `device` the monitor saw in [after_ns, before_ns]. The
    monitor stamps microseconds, so a message can read up to 1 µs before `after_ns`."""
    for t, message in monitor:
        if after_ns - 1000 <= t <= before_ns and re.search(rf"\b{re.escape(device)}\b", message):
            return max(t, after_ns)
    return None


# -- the topology ---------------------------------------------------------------------------------

@dataclasses.dataclass
class Uplink:
    name: str  # the client-side device, e.g. wifi0
    type: str  # what PREFLIGHT_NETWORK_TYPES calls it
    index: int  # its subnet is 198.18.(20 + index).0/24
    metric: int  # its default route's metric in the main table: the preferred network's is lowest
    delay_ms: float  # one way, each direction
    loss: float = 0.0  # random loss, each direction

    @property
    def client_ip(self) -> str:
        return f"198.18.{20 + self.index}.2"

    @property
    def gateway(self) -> str:
        return f"198.18.{20 + self.index}.1"

    @property
    def public_ip(self) -> str:
        """The address the router's NAT gives this uplink's traffic toward the edge."""
        return f"198.18.2.{20 + self.index}"

    @property
    def router_dev(self) -> str:
        return f"r-{self.name}"

    @property
    def table(self) -> int:
        return 100 + self.index

    @property
    def queues(self) -> tuple[int, int]:
        return 10 + 2 * self.index, 11 + 2 * self.index


def default_uplinks() -> dict[str, Uplink]:
    return {
        "cell0": Uplink("cell0", "cellular", 0, 300, 40.0),
        "wifi0": Uplink("wifi0", "wifi", 1, 200, 10.0),
        "eth0": Uplink("eth0", "ethernet", 2, 100, 2.0),
    }


@dataclasses.dataclass
class Event:
    at_s: float  # after the call connected
    action: str  # "up" or "down"
    uplink: str
    target: str | None  # the uplink that should carry the caller's audio after it; None: nothing to switch to


@dataclasses.dataclass
class HandoverScenario:
    name: str
    title: str
    uplinks: list[str]
    initially_up: list[str]
    events: list[Event]
    duration: int


def handover_scenarios() -> dict[str, HandoverScenario]:
    flaps = []
    for k in range(10):
        flaps += [Event(5 + 6 * k, "down", "wifi0", "cell0"), Event(8 + 6 * k, "up", "wifi0", "wifi0")]
    return {s.name: s for s in [
        HandoverScenario("a", "cellular only; Wi-Fi appears 5 s in", ["cell0", "wifi0"], ["cell0"],
                         [Event(5, "up", "wifi0", "wifi0")], 15),
        HandoverScenario("b", "Wi-Fi with cellular up; Wi-Fi's link goes down 5 s in", ["cell0", "wifi0"], ["cell0", "wifi0"],
                         [Event(5, "down", "wifi0", "cell0")], 15),
        HandoverScenario("c", "Wi-Fi flaps 10 times in 60 s (down 3 s, up 3 s), cellular up", ["cell0", "wifi0"],
                         ["cell0", "wifi0"], flaps, 70),
        HandoverScenario("d", "the only network (Wi-Fi) goes away for 5 s", ["wifi0"], ["wifi0"],
                         [Event(5, "down", "wifi0", None), Event(10, "up", "wifi0", "wifi0")], 15),
        HandoverScenario("e", f"the only network goes away for 35 s (consent timeout {CONSENT_TIMEOUT_S} s)", ["wifi0"],
                         ["wifi0"], [Event(5, "down", "wifi0", None), Event(40, "up", "wifi0", None)], 45),
    ]}


class HandoverLab(Lab):
    """The lab with a client of several uplinks (module docstring); no `c0`/`r-c` link."""

    def __init__(self, uplinks: list[Uplink], workdir: str | None = None, tag: str | None = None, seed: int = 1):
        super().__init__(workdir=workdir, tag=tag)
        self.uplinks = {u.name: u for u in uplinks}
        self.seed = seed
        self.delayers: dict[str, tuple[subprocess.Popen, Path]] = {}
        self.monitor: tuple[subprocess.Popen, Path] | None = None

    def up(self) -> None:
        for ns in self.ns.values():
            run(["ip", "netns", "add", ns])
            self._made.append(ns)
            run(["ip", "-n", ns, "link", "set", "dev", "lo", "up"])
        c, r, e = self.ns["client"], self.ns["router"], self.ns["edge"]
        # IPv4 only: no link-local IPv6 addresses on the uplinks to blur the networks' events.
        for key in ("all", "default"):
            run(["ip", "netns", "exec", c, "sysctl", "-qw", f"net.ipv6.conf.{key}.disable_ipv6=1"])
        run(["ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
        # Strict reverse-path filtering: a packet from another network's address never gets through.
        for key in ("all", "default"):
            run(["ip", "netns", "exec", r, "sysctl", "-qw", f"net.ipv4.conf.{key}.rp_filter=1"])
        self._veth(e, "e0", r, "r-e")
        run(["ip", "-n", r, "addr", "add", f"{ROUTER_EDGE_IP}/24", "dev", "r-e"])
        run(["ip", "-n", e, "addr", "add", f"{EDGE_IP}/24", "dev", "e0"])
        for ns, dev in ((r, "r-e"), (e, "e0")):
            run(["ip", "-n", ns, "link", "set", "dev", dev, "up"])
        run(["ip", "-n", e, "route", "add", "default", "via", ROUTER_EDGE_IP])
        self.nft(r, "add table ip nat")
        self.nft(r, "add chain ip nat postrouting { type nat hook postrouting priority srcnat; }")
        for u in self.uplinks.values():
            self._veth(c, u.name, r, u.router_dev)
            run(["ip", "netns", "exec", c, "sysctl", "-qw", f"net.ipv6.conf.{u.name}.disable_ipv6=1"])
            run(["ip", "-n", r, "addr", "add", f"{u.gateway}/24", "dev", u.router_dev])
            run(["ip", "-n", r, "link", "set", "dev", u.router_dev, "up"])
            run(["ip", "netns", "exec", r, "sysctl", "-qw", f"net.ipv4.conf.{u.router_dev}.rp_filter=1"])
            # Each network's NAT: its traffic reaches the edge from an address of its own.
            run(["ip", "-n", r, "addr", "add", f"{u.public_ip}/24", "dev", "r-e"])
            self.nft(r, f"add rule ip nat postrouting iifname \"{u.router_dev}\" oifname \"r-e\" snat to {u.public_ip}")
            # Policy routing: from its address, by its own table; never falls through to another uplink.
            run(["ip", "-n", c, "rule", "add", "from", u.client_ip, "lookup", str(u.table), "priority", str(1000 + u.index)])
            run(["ip", "-n", c, "route", "add", "unreachable", "default", "metric", "4294967295", "table", str(u.table)])
        self._start_delayers()

    def _start_delayers(self) -> None:
        r = self.ns["router"]
        for u in self.uplinks.values():
            q_up, q_down = u.queues
            config = self.workdir / f"impair-{u.name}.json"
            spec = {"delay": u.delay_ms, "loss": u.loss}
            config.write_text(json.dumps({"seed": self.seed * 10 + u.index, "up": spec, "down": spec,
                                          "queues": {"up": q_up, "down": q_down}}))
            log = self.workdir / f"delayer-{u.name}.csv"
            p = self.popen("router", [sys.executable, "-m", "labkit.delayer", "--config", str(config), "--log", str(log)],
                           stdout=subprocess.PIPE, text=True)
            assert p.stdout is not None
            if p.stdout.readline().strip() != "ready":
                raise LabError(f"the delayer of {u.name} did not start (exit {p.poll()}); is netfilterqueue installed?")
            self.delayers[u.name] = (p, log)
            run(["ip", "netns", "exec", r, "iptables", "-A", "FORWARD", "-i", u.router_dev, "-p", "udp", "-j", "NFQUEUE",
                 "--queue-num", str(q_up)])
            run(["ip", "netns", "exec", r, "iptables", "-A", "FORWARD", "-o", u.router_dev, "-p", "udp", "-j", "NFQUEUE",
                 "--queue-num", str(q_down)])

    def stop_delayers(self) -> dict[str, Path]:
        """Stops the delayers (each writes its log as it stops); the logs by uplink."""
        logs = {}
        for name, (p, log) in self.delayers.items():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            if p in self.processes:
                self.processes.remove(p)
            logs[name] = log
        self.delayers.clear()
        return logs

    def network_batch(self, uplink: str, action: str) -> list[str]:
        u = self.uplinks[uplink]
        if action == "down":
            return [f"link set dev {u.name} down", f"address flush dev {u.name}"]
        return [f"link set dev {u.name} up", f"address add {u.client_ip}/24 dev {u.name}",
                f"route replace default via {u.gateway} dev {u.name} metric {u.metric}",
                f"route replace default via {u.gateway} dev {u.name} table {u.table}"]

    def set_network(self, uplink: str, action: str) -> tuple[int, int]:
        """Brings a network up or takes it away (module docstring); (ns before, ns after) on CLOCK_REALTIME."""
        batch = "\n".join(self.network_batch(uplink, action)) + "\n"
        before = time.time_ns()
        result = subprocess.run(["ip", "-n", self.ns["client"], "-batch", "-"], input=batch, capture_output=True, text=True)
        after = time.time_ns()
        if result.returncode != 0:
            raise LabError(f"{action} {uplink}: {result.stderr.strip()}")
        return before, after

    def start_captures(self, label: str) -> None:
        """UDP on each uplink's router side (what the client sent, before the delayer), on the
        edge's interface, and everywhere in the client namespace (Linux cooked: devices come and
        go); the client namespace's netlink messages with their times (`ip -ts monitor`)."""
        self.stop_captures()
        points = [(f"router-{u.name}", "router", u.router_dev, []) for u in self.uplinks.values()]
        points += [("edge", "edge", "e0", []), ("client", "client", "any", ["-y", "LINUX_SLL"])]
        for key, host, dev, extra in points:
            path = self.workdir / f"{label}-{key}.pcap"
            p = self.popen(host, ["tcpdump", "-i", dev, *extra, "-w", str(path), "-U", "--immediate-mode", "-n", "-Z", "root",
                                  "-s", "2048", "--time-stamp-precision=nano", "udp"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            self.captures[key] = (p, path)
        for key, (p, _) in self.captures.items():
            assert p.stderr is not None
            line = p.stderr.readline()
            while line and "listening" not in line and "data link type" in line:
                line = p.stderr.readline()
            if "listening" not in line:
                raise LabError(f"tcpdump ({key}) did not start: {line.strip()}")
        path = self.workdir / f"{label}-netlink.txt"
        self.monitor = (self.popen("client", ["ip", "-ts", "monitor", "link", "address", "route"], stdout=open(path, "w"),
                                   stderr=subprocess.STDOUT), path)

    def stop_monitor(self) -> Path | None:
        if self.monitor is None:
            return None
        p, path = self.monitor
        if p.poll() is None:
            p.terminate()
        try:
            p.wait(timeout=3)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        if p in self.processes:
            self.processes.remove(p)
        self.monitor = None
        return path

    def down(self) -> None:
        self.stop_monitor()
        self.stop_delayers()
        super().down()


# -- one run ----------------------------------------------------------------------------------------

class Caller:
    """The caller process: its live lines (standard error) stamped as they come, `callDidConnect`
    and the final callback noticed, its JSON (standard output) kept."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        self.lines: list[tuple[int, str]] = []
        self.stdout = ""
        self.connected = threading.Event()
        self.connected_ns: int | None = None
        self.ended_ns: int | None = None
        self.exited_ns: int | None = None
        self._threads = [threading.Thread(target=self._read_stderr, daemon=True),
                         threading.Thread(target=self._read_stdout, daemon=True)]
        for t in self._threads:
            t.start()

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            now = time.time_ns()
            self.lines.append((now, line.rstrip("\n")))
            if line.startswith("caller callDidConnect") and self.connected_ns is None:
                self.connected_ns = now
                self.connected.set()
            if line.startswith(("caller call:didDisconnectWithError:", "caller call:didFailToConnectWithError:")):
                self.ended_ns = self.ended_ns or now
        self.connected.set()  # the process ended: nobody waits for a connection any longer

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        self.stdout = self.process.stdout.read()

    def wait(self, timeout: float) -> int | None:
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = None
            self.process.wait()
        self.exited_ns = time.time_ns()
        for t in self._threads:
            t.join(timeout=5)
        return code

    def outcome(self) -> dict | None:
        try:
            return json.loads(self.stdout)["caller"]
        except (json.JSONDecodeError, KeyError, TypeError):
            return None


def delayer_drops(log: Path) -> dict[str, set[str]]:
    """The payload hashes the delayer dropped on purpose, by direction ("up", "down")."""
    out: dict[str, set[str]] = {"up": set(), "down": set()}
    if not log.exists():
        return out
    for line in log.read_text().splitlines()[1:]:
        parts = line.split(",")
        if len(parts) == 6 and parts[3] == "drop":
            out.setdefault(parts[0], set()).add(parts[5])
    return out


def analyze(sc: HandoverScenario, uplinks: dict[str, Uplink], pcaps: dict[str, Path], drops: dict[str, dict[str, set[str]]],
            events: list[dict], connected_ns: int | None, ended_ns: int | None, outcome: dict | None) -> dict:
    """A run's figures from its captures, the delayers' drops, the events and the caller's outcome;
    each figure that cannot be had is None (and the reason is in "problems")."""
    from labkit.pcap import read_udp
    fig: dict = {"problems": []}
    fig["callbacks"] = (outcome or {}).get("callbacks")
    error = (outcome or {}).get("error")
    fig["error_code"] = error.get("code") if isinstance(error, dict) else None
    fig["error_message"] = error.get("message") if isinstance(error, dict) else None
    fig["dropped"] = call_dropped(outcome, connected_ns, ended_ns, sc.duration)
    fig["call_seconds"] = (ended_ns - connected_ns) / 1e9 if connected_ns and ended_ns else None
    fig["switches"] = []
    fig.update(gap_up_ms=None, gap_down_ms=None, lost_up=None, lost_down=None)
    if connected_ns is None:
        fig["problems"].append("the call never connected")
        return fig

    def read(key: str) -> list:
        path = pcaps.get(key)
        if path is None or not path.exists():
            fig["problems"].append(f"no capture {key}")
            return []
        try:
            return read_udp(path)
        except Exception as e:  # a capture cut short is read as far as it goes; anything else is reported
            fig["problems"].append(f"capture {key}: {e}")
            return []

    public = {u.public_ip for u in uplinks.values()}
    client_ips = {u.client_ip for u in uplinks.values()}
    by_uplink: dict[str, list[int]] = {}  # when each caller→edge audio packet left the client, by uplink
    sent_by_uplink: dict[str, list] = {}
    down_by_uplink: dict[str, list[int]] = {}  # edge→caller audio leaving the router by each uplink
    dropped_up: set[tuple[int, int]] = set()
    dropped_down_keys = set().union(*(d.get("down", set()) for d in drops.values())) if drops else set()
    for name, u in uplinks.items():
        routed = read(f"router-{name}")
        sent = [d for d in routed if d.src == u.client_ip and d.dst == EDGE_IP and T.is_audio_rtp(d)]
        sent_by_uplink[name] = sent
        down_by_uplink[name] = [d.time_ns for d in routed if d.src == EDGE_IP and d.dst == u.client_ip and T.is_audio_rtp(d)]
        up_drops = drops.get(name, {}).get("up", set())
        dropped_up |= {rtp_id(d.payload) for d in sent if d.key in up_drops}
    edge = read("edge")
    verified, nominations = edge_verifications(edge, EDGE_IP)
    arrived = [d for d in edge if d.src in public and d.dst == EDGE_IP and T.is_audio_rtp(d)]
    # The edge drops media from an address no check verified (docs/protocol.md, "Network
    # changes"): such packets arrived but were not received.
    up_rx = accepted_by_edge(arrived, verified)
    accepted_keys = {d.key for d in up_rx}
    by_public = {u.public_ip: name for name, u in uplinks.items()}
    fig["edge_nominations"] = [[round((t - connected_ns) / 1e9, 3), by_public.get(a[0], a[0])] for t, a in nominations]
    down_tx = [d for d in edge if d.src == EDGE_IP and d.dst in public and T.is_audio_rtp(d)]
    down_rx = [d for d in read("client") if d.src == EDGE_IP and d.dst in client_ips and T.is_audio_rtp(d)]
    dropped_down = {rtp_id(d.payload) for d in down_tx if d.key in dropped_down_keys}
    # A switch counts once the edge takes the media from the new network: packets that left by
    # it and arrived from an address the edge had verified (the same packet, by payload).
    by_uplink = {name: [d.time_ns for d in sent if d.key in accepted_keys] for name, sent in sent_by_uplink.items()}
    any_by_uplink = {name: [d.time_ns for d in sent] for name, sent in sent_by_uplink.items()}
    end = ended_ns or connected_ns + sc.duration * 1_000_000_000
    window = (connected_ns + 1_000_000_000, end - 1_000_000_000)
    fig["window_s"] = [(window[0] - connected_ns) / 1e9, (window[1] - connected_ns) / 1e9]
    fig["gap_up_ms"] = longest_gap_ms([d.time_ns for d in up_rx], *window)
    fig["gap_down_ms"] = longest_gap_ms([d.time_ns for d in down_rx], *window)

    def ids(datagrams):
        return [(d.time_ns, *rtp_id(d.payload)) for d in datagrams]

    fig["lost_up"] = packets_lost(ids(up_rx), dropped_up, window)
    fig["lost_down"] = packets_lost(ids(down_rx), dropped_down, window)
    fig["dropped_on_purpose"] = {"up": len(dropped_up), "down": len(dropped_down)}
    fig["rtp_packets"] = {"up_sent_by_uplink": {k: len(v) for k, v in sent_by_uplink.items()},
                          "up_accepted_by_uplink": {k: len(v) for k, v in by_uplink.items()},
                          "up_arrived": len(arrived), "up_received": len(up_rx),
                          "down_sent": len(down_tx), "down_received": len(down_rx),
                          "up_ssrcs": len({rtp_id(d.payload)[0] for d in up_rx}),
                          "down_ssrcs": len({rtp_id(d.payload)[0] for d in down_rx})}
    fig["carrier_at_end"] = carrier_before(end, by_uplink)
    reconnection = [c for c in fig["callbacks"] or [] if c in ("call:isReconnectingWithError:", "callDidReconnect")]
    fig["reconnecting_at_end"] = bool(reconnection) and reconnection[-1] == "call:isReconnectingWithError:"
    for i, ev in enumerate(events):
        if ev.get("t_ns") is None:
            continue
        following = [e["t_ns"] for e in events[i + 1:] if e.get("t_ns") is not None]
        until = min(following + [end])
        row = {"at_s": ev["at_s"], "action": ev["action"], "uplink": ev["uplink"], "target": ev["target"],
               "carrier_before": carrier_before(ev["t_ns"], by_uplink)}
        if ev["target"]:
            row.update(switch_time(ev["t_ns"], until, ev["target"], by_uplink))
            # Diagnosis: the first packet on the target at all, whether or not the edge took it.
            row["first_sent_ms"] = switch_time(ev["t_ns"], until, ev["target"], any_by_uplink)["ms"]
            # The other direction: the edge's audio reaching the client by the target (the edge
            # sends where the client nominated), and the nomination itself.
            row["down_ms"] = switch_time(ev["t_ns"], until, ev["target"], down_by_uplink)["ms"]
            target_public = uplinks[ev["target"]].public_ip
            nominated = [t for t, a in nominations if a[0] == target_public and ev["t_ns"] <= t < until]
            row["nominated_ms"] = (nominated[0] - ev["t_ns"]) / 1e6 if nominated else None
            row["both_ms"] = both_ways(row)
        fig["switches"].append(row)
    return fig


def run_once(sc: HandoverScenario, uplinks: dict[str, Uplink], binary: Path, out: Path, tag: str, seed: int) -> dict:
    """One call of a scenario in a fresh lab; its figures, partial when something failed."""
    from labkit.call import DIAL_APP, mint, serve
    out.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    used = {name: uplinks[name] for name in sc.uplinks}
    record: dict = {"scenario": sc.name, "dir": str(out), "events": [], "failure": None}
    caller: Caller | None = None
    pcaps: dict[str, Path] = {}
    logs: dict[str, Path] = {}
    monitor_path: Path | None = None
    try:
        with HandoverLab(list(used.values()), workdir=str(out), tag=tag, seed=seed) as lab:
            for name in sc.initially_up:
                lab.set_network(name, "up")
            lab._wait_reachable()
            url = serve(lab, binary, secret, out)
            listener = lab.popen("edge", [str(binary), "listen", "--identity", "bob", "--edge-url", url, "--token",
                                          mint(binary, secret, "bob", DIAL_APP, "--incoming"), "--answer", "auto", "--calls", "1"],
                                 stdout=open(out / "callee.txt", "w"), stderr=subprocess.STDOUT, text=True)
            time.sleep(1.0)
            if listener.poll() is not None:
                raise LabError(f"the callee stopped before the call: see {out / 'callee.txt'}")
            lab.start_captures("handover")
            env = dict(os.environ, PREFLIGHT_NETWORK_TYPES=NETWORK_TYPES)
            process = lab.popen("client", [str(binary), "call", "--to", "client:bob", "--edge-url", url, "--token",
                                           mint(binary, secret, "alice", DIAL_APP), "--duration", str(sc.duration), "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1, env=env)
            caller = Caller(process)
            caller.connected.wait(timeout=60)
            if caller.connected_ns is None:
                record["failure"] = "the call did not connect"
            else:
                for ev in sc.events:
                    row = {"at_s": ev.at_s, "action": ev.action, "uplink": ev.uplink, "target": ev.target, "t_ns": None}
                    record["events"].append(row)
                    delay = caller.connected_ns / 1e9 + ev.at_s - time.time()
                    if delay > 0 and caller.process.poll() is None:
                        try:
                            caller.process.wait(timeout=delay)
                        except subprocess.TimeoutExpired:
                            pass
                    if caller.process.poll() is not None:
                        row["skipped"] = "the call had ended"
                        continue
                    row["before_ns"], row["after_ns"] = lab.set_network(ev.uplink, ev.action)
            code = caller.wait(timeout=sc.duration + CONSENT_TIMEOUT_S + 60)
            record["caller_exit"] = code
            if code is None:
                record["failure"] = record["failure"] or "the caller did not finish in time (killed)"
            time.sleep(0.3)  # the last packets in flight reach the captures
            pcaps = lab.stop_captures()
            monitor_path = lab.stop_monitor()
            logs = lab.stop_delayers()
    except Exception as e:  # noqa: BLE001 — the run's partial figures are still read below
        record["failure"] = f"{type(e).__name__}: {e}"
    # After a failure the lab's teardown stopped the captures and the delayers (which write their
    # logs as they stop): what they hold is read all the same.
    if not pcaps:
        keys = [f"router-{name}" for name in used] + ["edge", "client"]
        pcaps = {k: out / f"handover-{k}.pcap" for k in keys if (out / f"handover-{k}.pcap").exists()}
    if not logs:
        logs = {name: out / f"delayer-{name}.csv" for name in used}
    if monitor_path is None and (out / "handover-netlink.txt").exists():
        monitor_path = out / "handover-netlink.txt"
    if caller is not None:
        (out / "caller.json").write_text(caller.stdout)
        (out / "caller.log").write_text("\n".join(f"{t} {line}" for t, line in caller.lines) + "\n")
    monitor = parse_monitor(monitor_path.read_text()) if monitor_path and monitor_path.exists() else []
    for row in record["events"]:
        if row.get("before_ns") is not None:
            k = kernel_time(monitor, row["uplink"], row["before_ns"], row["after_ns"] + 50_000_000)
            row["t_ns"] = k or row["before_ns"]
            row["clock"] = "kernel (ip -ts monitor)" if k else "script, before the ip batch"
            row["batch_ms"] = (row["after_ns"] - row["before_ns"]) / 1e6
    outcome = caller.outcome() if caller else None
    connected = caller.connected_ns if caller else None
    ended = (caller.ended_ns or caller.exited_ns) if caller else None
    try:
        record.update(analyze(sc, used, pcaps, {n: delayer_drops(p) for n, p in logs.items()}, record["events"],
                              connected, ended, outcome))
    except Exception as e:  # the partial figures stay; the reason is reported
        record.setdefault("problems", []).append(f"analysis: {type(e).__name__}: {e}")
        record.setdefault("dropped", call_dropped(outcome, connected, ended, sc.duration))
    if caller is not None and connected is not None:
        record["callbacks_timed"] = [[round((t - connected) / 1e9, 3), line.split()[1]]
                                     for t, line in caller.lines
                                     if line.startswith("caller ") and len(line.split()) > 1 and line.split()[1].startswith("call")]
    return record


def switch_text(s: dict) -> str:
    """One event's switch for the run line: its time, `already`, or `never` (with when packets
    left by the target anyway, which the edge did not take)."""
    if s.get("ms") is not None:
        return f"{s['ms']:.0f} ms (edge's audio by it {_ms(s.get('down_ms'))} ms, nominated {_ms(s.get('nominated_ms'))} ms)"
    if s.get("already"):
        return "already"
    sent = s.get("first_sent_ms")
    return "never" + (f" (sent on it from {sent:.0f} ms, not taken by the edge)" if sent is not None else "")


def describe(record: dict) -> str:
    sw = ", ".join(f"{s['action']} {s['uplink']}@{s['at_s']:g}s→{s['target']}: {switch_text(s)}"
                   for s in record.get("switches", []) if s.get("target"))
    return (f"switch [{sw or '–'}]; gap up {_ms(record.get('gap_up_ms'))} ms, down {_ms(record.get('gap_down_ms'))} ms; "
            f"lost up {record.get('lost_up')}, down {record.get('lost_down')}; "
            f"{'DROPPED' if record.get('dropped') else 'not dropped'}"
            f"{' (still reconnecting at its end)' if record.get('reconnecting_at_end') else ''}"
            f"{' (error ' + str(record.get('error_code')) + ': ' + str(record.get('error_message')) + ')' if record.get('error_code') else ''}"
            f"{'; FAILED: ' + record['failure'] if record.get('failure') else ''}"
            f"{'; problems: ' + '; '.join(record['problems']) if record.get('problems') else ''}")


def parse_overrides(items: list[str] | None, kind) -> dict[str, float]:
    out = {}
    for item in items or []:
        name, _, value = item.partition("=")
        if not value:
            raise ValueError(f"expected name=value, got {item!r}")
        out[name] = kind(value)
    return out


def main(runs: int, names: list[str] | None, out: Path | None, delays: list[str] | None = None,
         losses: list[str] | None = None, seed: int = 1) -> int:
    from labkit.bench import preflight_binary
    repo = Path(__file__).resolve().parents[2]
    uplinks = default_uplinks()
    for name, value in parse_overrides(delays, float).items():
        if name not in uplinks:
            raise ValueError(f"no uplink {name} (cell0, wifi0, eth0)")
        uplinks[name].delay_ms = value
    for name, value in parse_overrides(losses, float).items():
        if name not in uplinks:
            raise ValueError(f"no uplink {name} (cell0, wifi0, eth0)")
        uplinks[name].loss = value
    all_scenarios = handover_scenarios()
    chosen = names or list(all_scenarios)
    unknown = [n for n in chosen if n not in all_scenarios]
    if unknown:
        raise ValueError(f"unknown scenarios {unknown}: choose from {', '.join(all_scenarios)}")
    binary = preflight_binary(repo)
    out = out or repo / ".build" / "lab-handover" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[dict]] = {}
    report_path = out / "handover.json"

    def save():
        report_path.write_text(json.dumps({
            "uplinks": {n: dataclasses.asdict(u) for n, u in uplinks.items()},
            "network_types": NETWORK_TYPES, "binary": str(binary),
            "scenarios": {n: dataclasses.asdict(all_scenarios[n]) for n in chosen},
            "summary": [summarize(n, results[n]) for n in results],
            "runs": results}, indent=1, default=str))

    counter = 0
    for name in chosen:
        sc = all_scenarios[name]
        results[name] = []
        for i in range(runs):
            counter += 1
            tag = f"{os.getpid()}{counter:03d}"
            record = run_once(sc, uplinks, binary, out / f"{name}-{i + 1:02d}", tag, seed + i)
            record["run"] = i + 1
            results[name].append(record)
            print(f"{name} run {i + 1}/{runs} ({sc.title}): {describe(record)}", flush=True)
            save()
        first = results[name][0]
        print(f"{name} callbacks (run 1): {first.get('callbacks')}", flush=True)
    summaries = [summarize(n, results[n]) for n in chosen]
    print(format_table(summaries))
    print(f"every run's figures: {report_path}")
    stale = Lab.sweep()
    if stale:
        print(f"swept namespaces left behind: {stale}", file=sys.stderr)
    return 0 if all(s["met"] == s["runs"] for s in summaries) else 1
