"""`scripts/lab selftest`: proves the lab's mechanisms against their own logs, so that the
accuracy benchmark's ground truth is itself checked. Each check prints its figures; any miss
exits non-zero."""

from __future__ import annotations

import json
import subprocess
import sys

from labkit import truth as T
from labkit.impair import DirectionSpec
from labkit.lab import CLIENT_IP, EDGE_IP, Lab
from labkit.pcap import read_udp

SINK = """
import socket, sys, json, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('{ip}', 9100)); s.settimeout(2.0)
print('ready', flush=True); got = []
try:
    while True:
        data = s.recv(2048); got.append((int.from_bytes(data[:4], 'big'), time.time()))
except socket.timeout:
    pass
print(json.dumps(got), flush=True)
"""

SOURCE = """
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range({count}):
    s.sendto(i.to_bytes(4, 'big') + bytes({size} - 4), ('{ip}', 9100)); time.sleep({gap})
"""


def send_and_count(lab: Lab, count: int, size: int, gap: float) -> list[list]:
    sink = lab.popen("edge", [sys.executable, "-c", SINK.format(ip=EDGE_IP)], stdout=subprocess.PIPE, text=True)
    assert sink.stdout is not None
    if sink.stdout.readline().strip() != "ready":
        raise SystemExit("selftest: the sink did not start")
    lab.run_on("client", [sys.executable, "-c", SOURCE.format(count=count, size=size, ip=EDGE_IP, gap=gap)], timeout=120)
    got = json.loads(sink.stdout.readline())
    sink.wait(timeout=10)
    return got  # [(index, arrival time)]


def main() -> int:
    failures = []

    def check(name: str, ok: bool, detail: str) -> None:
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}", flush=True)
        if not ok:
            failures.append(name)

    with Lab() as lab:
        tag = lab.tag
        # 1. The delayer: delay and random loss, its log against the captures and the receiver.
        lab.impair(DirectionSpec(delay=30, jitter=5, loss=0.1), DirectionSpec(), seed=5)
        lab.start_captures("delayer")
        got = send_and_count(lab, 400, 100, 0.005)
        captures = lab.stop_captures()
        log = lab.clear_impairments()
        up = T.direction_truth(T.select(read_udp(captures["client"]), CLIENT_IP, EDGE_IP, lambda d: True),
                               T.select(read_udp(captures["edge"]), CLIENT_IP, EDGE_IP, lambda d: True))
        rows = [line.split(",") for line in open(log).read().splitlines()[1:] if line]
        drops = sum(1 for r in rows if r[3] == "drop")
        check("delayer loss", drops == 400 - len(got) == up.lost and 20 <= drops <= 65,
              f"log dropped {drops}, receiver missed {400 - len(got)}, captures lost {up.lost} (10 % of 400 configured)")
        held = [(int(r[2]) - int(r[1])) / 1e6 for r in rows if r[3] == "pass"]
        check("delayer delay", min(up.delays_ms) >= 25 and 28 <= sum(up.delays_ms) / len(up.delays_ms) <= 36
              and min(held) >= 24.9, f"one-way delay in captures min {min(up.delays_ms):.2f} mean "
              f"{sum(up.delays_ms) / len(up.delays_ms):.2f} ms; log's hold min {min(held):.2f} ms (30 ± 5 configured)")
        check("delayer fifo", up.reordered == 0, f"{up.reordered} reordered with FIFO on")

        # 2. nftables numgen loss in the receiver's input hook, counted by the rule.
        lab.impair(DirectionSpec(loss=0.2), DirectionSpec(), seed=6, loss_engine="nft")
        got = send_and_count(lab, 400, 100, 0.002)
        counted = lab.nft_drops()["up"]
        lab.clear_impairments()
        check("nft loss", counted == 400 - len(got) and 50 <= counted <= 110,
              f"rule counted {counted}, receiver missed {400 - len(got)} (20 % of 400 configured)")

        # 3. tbf: 400 kbit/s; a burst of 300 × 1000 B arrives no faster than the rate.
        lab.impair(DirectionSpec(), DirectionSpec(), seed=7, rate_kbit=400)
        got = send_and_count(lab, 300, 1000, 0.002)  # 4 Mbit/s offered
        stats = lab.shaper_stats()
        lab.clear_impairments()
        span = got[-1][1] - got[0][1] if len(got) > 1 else 0
        # IP + Ethernet headers: 1042 bytes on the wire per datagram; tbf's burst lets one through at once.
        kbit = (len(got) - 1) * 1042 * 8 / 1000 / span if span > 0 else float("inf")
        dropped = stats.get("up", {}).get("dropped", 0)
        check("tbf rate", kbit <= 400 * 1.1 and len(got) + dropped == 300 and len(got) > 20,
              f"{len(got)} received at {kbit:.0f} kbit/s (400 configured), tbf dropped {dropped}, "
              f"received + dropped = {len(got) + dropped} of 300")

    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    check("teardown", f"pfl{tag}-" not in left, "no namespace of this lab is left")
    return 1 if failures else 0
