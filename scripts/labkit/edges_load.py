"""`lab edges`, the media between the edges: the time each edge's relay adds to a packet (from
captures on each edge's own interface), a call across the edges whose callee reaches its edge
only through coturn, and many concurrent calls across the edges with each edge's CPU per packet
(docs/lab.md, "Calls across edges")."""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
from base64 import b64encode
from pathlib import Path

from labkit.bench import ACCOUNT, API_KEY
from labkit.edges import CLIENT_A, CLIENT_B, EDGE_A, EDGE_B, LOAD, MEDIA_PORT, Edge, EdgesLab, percentile
from labkit.edges_failover import listen, place_call
from labkit.lab import LabError, run
from labkit.pcap import read_udp


def rtp_timestamp(payload: bytes) -> int | None:
    """An RTP packet's timestamp; `None` for STUN, RTCP and anything else."""
    if len(payload) < 12 or payload[0] >> 6 != 2 or 72 <= payload[1] & 0x7F <= 76:
        return None
    return int.from_bytes(payload[4:8], "big")


def relay_delays(capture: Path, edge: str, sources: dict[str, tuple[str, str]]) -> dict[str, list[float]]:
    """For each direction through `edge` (a packet from `source` relayed to `destination`), the
    ms between its arrival and its departure on the edge's interface. Each leg of the bridge
    has its own SSRC and sequence numbers, and its RTP timestamps are the other leg's plus a
    constant: the offset is the one most of the first departures share with the arrival just
    before them, and each departure is matched to the arrival of its timestamp less it."""
    datagrams = read_udp(capture)
    delays: dict[str, list[float]] = {}
    for label, (source, destination) in sources.items():
        arrivals = [(d.time_ns, ts) for d in datagrams if d.src == source and d.dst == edge and (ts := rtp_timestamp(d.payload)) is not None]
        departures = [(d.time_ns, ts) for d in datagrams if d.src == edge and d.dst == destination
                      and (ts := rtp_timestamp(d.payload)) is not None]
        offsets: dict[int, int] = {}
        for time_ns, ts in departures[:50]:
            before = [a for a in arrivals if a[0] <= time_ns]
            if before:
                offset = (ts - before[-1][1]) % 2**32
                offsets[offset] = offsets.get(offset, 0) + 1
        if not offsets:
            delays[label] = []
            continue
        offset = max(offsets, key=offsets.get)
        arrived = {ts: time_ns for time_ns, ts in reversed(arrivals)}  # the first arrival of each
        delays[label] = [(time_ns - arrived[(ts - offset) % 2**32]) / 1e6 for time_ns, ts in departures
                         if (ts - offset) % 2**32 in arrived and time_ns >= arrived[(ts - offset) % 2**32]]
    return delays


def relay_latency(lab: EdgesLab, binary: Path, secret: str, europe: Edge, america: Edge, seconds: int = 10) -> dict:
    """One call across the edges (alice near europe, bob near america) captured on both edges'
    interfaces: what each relay adds, per direction."""
    out = lab.workdir
    bob = listen(lab, binary, secret, "cb", "bob-relay", america, europe, out / "relay-listen.log", calls=1)
    time.sleep(0.5)
    captures = {}
    dumps = []
    for edge in (europe, america):
        path = out / f"relay-{edge.name}.pcap"
        dumps.append(lab.popen(edge.host, ["tcpdump", "-i", "h0", "-U", "-n", "-w", str(path), "udp", "port", str(MEDIA_PORT)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        captures[edge.name] = path
    time.sleep(1)  # tcpdump listens
    caller = place_call(lab, binary, secret, "ca", europe, "alice", "bob-relay", seconds, out / "relay-call.log")
    outcome = caller.finish(timeout=seconds + 60)
    bob.process.wait(timeout=30)
    time.sleep(0.5)
    for dump in dumps:
        dump.terminate()
        dump.wait(timeout=10)
    if outcome.get("error"):
        raise LabError(f"the relay's call failed: {outcome['error']}")
    europe_delays = relay_delays(captures["europe"], EDGE_A, {"alice→bob": (CLIENT_A, EDGE_B), "bob→alice": (EDGE_B, CLIENT_A)})
    america_delays = relay_delays(captures["america"], EDGE_B, {"alice→bob": (EDGE_A, CLIENT_B), "bob→alice": (CLIENT_B, EDGE_A)})
    figures = {}
    for name, delays in (("europe", europe_delays), ("america", america_delays)):
        for direction, values in delays.items():
            if not values:
                raise LabError(f"no packet of {direction} matched through {name}: see {captures[name]}")
            figures[f"{name} {direction}"] = {"packets": len(values), "medianMs": statistics.median(values),
                                              "p99Ms": percentile(values, 99), "maxMs": max(values)}
    return figures


def concurrent_calls(lab: EdgesLab, binary: Path, secret: str, europe: Edge, america: Edge, calls: int, seconds: int) -> dict:
    """`preflight load --calls N` from the load host: callers on europe, callees on america,
    every call across the trunk. The inter-edge link is not delayed meanwhile: the lab's
    delayer (Python) carries a few thousand packets a second, and delay changes neither loss
    nor CPU."""
    lab.undelay_trunk()
    env = dict(os.environ, PREFLIGHT_API_KEY=API_KEY, PREFLIGHT_API_SECRET=secret, PREFLIGHT_ACCOUNT=ACCOUNT)
    try:
        load = lab.popen("lg", [str(binary), "load", "--calls", str(calls), "--duration", str(seconds), "--edge-url", europe.url,
                                "--callee-edge-url", america.url, "--address", LOAD,
                                "--edge-pid", f"europe={europe.process.pid}", "--edge-pid", f"america={america.process.pid}"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            text, errors = load.communicate(timeout=seconds + 300)
        except subprocess.TimeoutExpired:
            load.kill()
            text, errors = load.communicate()
    finally:
        lab.delay_trunk()
    (lab.workdir / "load.txt").write_text(text + errors)
    if load.returncode != 0:
        raise LabError(f"preflight load failed: {errors[-500:]}")

    def number(pattern: str) -> float:
        found = re.search(pattern, text)
        if not found:
            raise LabError(f"preflight load printed no {pattern!r}: see {lab.workdir / 'load.txt'}")
        return float(found.group(1))

    figures = {"calls": calls, "connected": int(number(r"calls\s+(\d+) of")), "held": int(number(r"connected, (\d+) held")),
               "lossPercent": number(r"loss\s+([\d.]+) %"), "packetsPerSecond": number(r"packets/s\s+(\d+) bridged"),
               "output": text}
    for name in ("europe", "america"):
        figures[f"{name}CorePercent"] = number(name + r" CPU\s+(\d+) % of one core")
        figures[f"{name}MicrosecondsPerPacket"] = number(name + r" CPU.*?([\d.]+) µs per packet")
    return figures


def call_through_turn(lab: EdgesLab, binary: Path, secret: str, europe: Edge, america: Edge, seconds: int = 5) -> dict:
    """bob's UDP to america's media port is dropped at the router, so his only way to his edge is
    coturn's relay beside america (its `--ice-server`); alice calls him from europe. Returns
    the call's events as `GET /v1/calls/{sid}/events` gives them on america (both parties',
    each with its edge), and bob's selected pair and media."""
    out = lab.workdir
    block = ["-p", "udp", "-d", EDGE_B, "--dport", str(MEDIA_PORT), "-j", "DROP"]
    run(["ip", "netns", "exec", lab.ns["r"], "iptables", "-I", "FORWARD", "1", "-i", "r-cb", *block])
    try:
        bob = listen(lab, binary, secret, "cb", "bob-turn", america, europe, out / "turn-listen.log", calls=1)
        time.sleep(0.5)
        caller = place_call(lab, binary, secret, "ca", europe, "alice", "bob-turn", seconds, out / "turn-call.log")
        outcome = caller.finish(timeout=seconds + 60)
        bob.process.wait(timeout=30)
    finally:
        run(["ip", "netns", "exec", lab.ns["r"], "iptables", "-D", "FORWARD", "-i", "r-cb", *block])
    if outcome.get("error") or not outcome.get("callSid"):
        raise LabError(f"the call through TURN failed: {outcome.get('error')} (see turn-call.log, turn-listen.log)")
    ended = [json.loads(line) for _, line in bob.events.lines if '"ended"' in line]
    bob_outcome = ended[0]["outcome"] if ended else {}
    received = sum(sample.get("packetsReceived", 0) for sample in bob_outcome.get("samples", [])[-1:])
    auth = b64encode(f"{API_KEY}:{america.secret}".encode()).decode()
    fetch = ("import urllib.request,sys\n"
             f"r=urllib.request.Request('{america.http}/v1/calls/{outcome['callSid']}/events',"
             f"headers={{'Authorization':'Basic {auth}'}})\n"
             "sys.stdout.write(urllib.request.urlopen(r,timeout=5).read().decode())\n")
    events: list = []
    for _ in range(50):  # each party posts its events at the end of its call
        answer = lab.run_on("eb", [sys.executable, "-c", fetch], timeout=20)
        events = json.loads(answer.stdout).get("events", []) if answer.returncode == 0 and answer.stdout.strip() else []
        if {event.get("edge") for event in events} >= {"europe", "america"}:
            break
        time.sleep(0.2)
    (out / "turn-call-events.json").write_text(json.dumps(events, indent=1))
    pairs = [e for e in events if e.get("name") == "selected-ice-candidate-pair" and e.get("party") == "callee"]
    return {"callSid": outcome["callSid"], "bobPacketsReceived": received, "events": len(events),
            "edges": sorted({event.get("edge") for event in events}),
            "bobLocalCandidate": (pairs[-1].get("payload") or {}).get("localCandidateType") if pairs else None}
