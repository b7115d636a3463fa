"""The NFQUEUE delayer: holds, delays, jitters and drops the packets that an iptables NFQUEUE rule
hands it, one queue per direction, and logs what it did to every packet (its ground truth).

    python3 -m labkit.delayer --config impair.json --log delayer.csv

`impair.json`: {"seed": 1, "up": {DirectionSpec}, "down": {DirectionSpec}, "queues": {"up": 1, "down": 2}}.
The log (written on SIGTERM/SIGINT): direction,arrival_ns,release_ns,action,udp_len,hash — release_ns
is empty for a dropped packet; `hash` identifies the UDP payload, to match the packet in captures.
Prints "ready" on stdout once both queues are bound.
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import json
import select
import signal
import sys
import time

from labkit.impair import DirectionModel, DirectionSpec


def payload_key(ip_packet: bytes) -> tuple[int, str]:
    """(UDP payload length, 16-hex-digit hash of it) of an IPv4/UDP packet; (0, "") for others."""
    if len(ip_packet) < 28 or ip_packet[0] >> 4 != 4 or ip_packet[9] != 17:
        return 0, ""
    ihl = (ip_packet[0] & 0x0F) * 4
    payload = ip_packet[ihl + 8:]
    return len(payload), hashlib.blake2b(payload, digest_size=8).hexdigest()


def main() -> int:
    from netfilterqueue import NetfilterQueue  # imported here so that the pure parts load without it

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        config = json.load(f)
    seed = int(config.get("seed", 1))
    queues = config.get("queues", {"up": 1, "down": 2})

    stop = False

    def on_signal(_signum, _frame):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    rows: list[str] = []
    pending: list[tuple[float, int, str, int, object, int, str]] = []
    counter = 0
    handles = []

    for index, direction in enumerate(("up", "down")):
        model = DirectionModel(DirectionSpec.from_dict(config.get(direction, {})), seed * 2 + index)

        def callback(pkt, direction=direction, model=model):
            nonlocal counter
            arrival_ns = time.time_ns()
            length, key = payload_key(pkt.get_payload())
            release = model.decide(arrival_ns / 1e9)
            if release is None:
                pkt.drop()
                rows.append(f"{direction},{arrival_ns},,drop,{length},{key}")
                return
            counter += 1
            heapq.heappush(pending, (release, counter, direction, arrival_ns, pkt, length, key))

        nfq = NetfilterQueue()
        nfq.bind(int(queues[direction]), callback, max_len=8192)
        handles.append(nfq)

    fds = [q.get_fd() for q in handles]
    by_fd = dict(zip(fds, handles))
    print("ready", flush=True)
    try:
        while not stop:
            now = time.time()
            timeout = 0.2 if not pending else max(0.0, pending[0][0] - now)
            try:
                ready, _, _ = select.select(fds, [], [], timeout)
            except InterruptedError:
                continue
            for fd in ready:
                by_fd[fd].run(block=False)
            now = time.time()
            while pending and pending[0][0] <= now:
                _, _, direction, arrival_ns, pkt, length, key = heapq.heappop(pending)
                pkt.accept()
                rows.append(f"{direction},{arrival_ns},{time.time_ns()},pass,{length},{key}")
    finally:
        # Packets still held are released, so that stopping the lab never loses them silently.
        while pending:
            _, _, direction, arrival_ns, pkt, length, key = heapq.heappop(pending)
            pkt.accept()
            rows.append(f"{direction},{arrival_ns},{time.time_ns()},pass,{length},{key}")
        for q in handles:
            q.unbind()
        with open(args.log, "w") as f:
            f.write("direction,arrival_ns,release_ns,action,udp_len,hash\n")
            f.write("\n".join(rows))
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
