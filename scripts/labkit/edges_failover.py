"""`lab edges`, its failures: an edge killed with SIGKILL in the middle of a call across the
edges, and a rolling restart of both edges (SIGTERM, drain, start) under calls and listening
clients. Each prints its figures beside the issue's targets (docs/lab.md, "Calls across edges")."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from labkit.call import DIAL_APP, mint
from labkit.edges import BRIDGE_APP, EDGE_A, EDGE_B, Edge, EdgesLab, Stamped, status_probe
from labkit.lab import LabError

# The client's consent timeout (RFC 7675's 30 s): a call whose media stopped ends by then.
CONSENT_TIMEOUT_S = 30.0
# The target for a dead edge's registrations to be gone from the other edge.
REGISTRATIONS_GONE_S = 15.0
# `serve --route-across-edges` drains for up to 30 s on SIGTERM by default.
DRAIN_LIMIT_S = 30


@dataclass
class Caller:
    """A `preflight call --json`: its live lines (stderr) stamped, its outcome at exit."""
    process: subprocess.Popen
    live: Stamped
    outcome: dict = field(default_factory=dict)

    def connected(self, timeout: float = 30) -> float | None:
        found = self.live.wait_for(lambda line: "callDidConnect" in line, timeout)
        return found[1] if found else None

    def finish(self, timeout: float) -> dict:
        try:
            stdout, _ = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            stdout, _ = self.process.communicate()
        self.outcome = json.loads(stdout)["caller"] if stdout.strip() else {}
        return self.outcome


def place_call(lab: EdgesLab, binary: Path, secret: str, host: str, edge: Edge, caller: str, callee: str, seconds: int,
               log: Path) -> Caller:
    process = lab.popen(host, [str(binary), "call", "--to", f"client:{callee}", "--edge-url", edge.url, "--token",
                               mint(binary, secret, caller, BRIDGE_APP), "--duration", str(seconds), "--json"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return Caller(process, Stamped(process.stderr, log))


@dataclass
class Listener:
    """A `preflight listen --json` with a fallback edge: its events stamped."""
    identity: str
    process: subprocess.Popen
    events: Stamped

    def registrations(self) -> list[tuple[float, str]]:
        """(time, edge URL) of each `registered` event so far."""
        found = []
        for stamp, line in list(self.events.lines):
            event = json.loads(line) if line.startswith("{") else {}
            if event.get("event") == "registered":
                found.append((stamp, event.get("edge", "")))
        return found

    def registered(self) -> bool:
        """Whether its last registration event was `registered` (not `unregistered`)."""
        state = False
        for _, line in list(self.events.lines):
            event = json.loads(line).get("event") if line.startswith("{") else None
            if event in ("registered", "unregistered"):
                state = event == "registered"
        return state and self.process.poll() is None


def listen(lab: EdgesLab, binary: Path, secret: str, host: str, identity: str, edge: Edge, fallback: Edge, log: Path,
           calls: int | None = None) -> Listener:
    argv = [str(binary), "listen", "--identity", identity, "--edge-url", edge.url, "--fallback-edge-url", fallback.url,
            "--token", mint(binary, secret, identity, DIAL_APP, "--incoming"), "--answer", "auto", "--json"]
    if calls:
        argv += ["--calls", str(calls)]
    process = lab.popen(host, ["stdbuf", "-oL", *argv], stdout=subprocess.PIPE, stderr=open(log.with_suffix(".err"), "w"), text=True)
    listener = Listener(identity, process, Stamped(process.stdout, log))
    if not listener.events.wait_for(lambda line: '"registered"' in line, 30):
        raise LabError(f"{identity} did not register: see {log}")
    return listener


class StatusWatch:
    """Europe's count of the other edges' registrations, each change stamped (a status probe)."""

    def __init__(self, lab: EdgesLab, edge: Edge, log: Path):
        self.process = lab.popen(edge.host, [sys.executable, "-c", status_probe(edge)], stdout=subprocess.PIPE,
                                 stderr=open(log, "w"), text=True)
        self.changes = Stamped(self.process.stdout, log.with_suffix(".out"))

    def count_reached(self, accept, timeout: float, start: int = 0) -> tuple[int, float, int] | None:
        """The first change from index `start` on to a count `accept` takes: its index, time
        and count."""
        def accepted(line: str) -> bool:
            count = line.split()[-1]
            return count.isdigit() and accept(int(count))
        found = self.changes.wait_for(accepted, timeout, start)
        return (found[0], float(found[2].split()[0]), int(found[2].split()[-1])) if found else None

    def stop(self) -> None:
        self.process.terminate()


def sigkill(lab: EdgesLab, binary: Path, secret: str, europe: Edge, america: Edge) -> dict:
    """bob listens on america; alice calls him through europe; america is killed (SIGKILL) 3 s
    into the call. Returns the seconds from the kill to alice's call ending and its error, and
    to europe's count of america's registrations reaching 0."""
    out = lab.workdir
    watch = StatusWatch(lab, europe, out / "kill-status.log")
    # The registrations of what ran before (the load's callees) are gone first.
    first = watch.count_reached(lambda count: count == 0, 60)
    if first is None:
        raise LabError(f"europe still had other edges' registrations after 60 s: see {out / 'kill-status.log.out'}")
    bob = listen(lab, binary, secret, "cb", "bob-kill", america, europe, out / "kill-listen.log", calls=None)
    seen = watch.count_reached(lambda count: count > 0, 15, start=first[0] + 1)
    if seen is None:
        raise LabError("europe never saw bob-kill's registration on america")
    caller = place_call(lab, binary, secret, "ca", europe, "alice", "bob-kill", 120, out / "kill-call.log")
    if caller.connected() is None:
        raise LabError(f"the call to kill did not connect: see {out / 'kill-call.log'}")
    time.sleep(3)
    killed = time.time()
    america.process.kill()
    ended = caller.live.wait_for(lambda line: "didDisconnect" in line or "didFailToConnect" in line, CONSENT_TIMEOUT_S + 30)
    outcome = caller.finish(timeout=30)
    # Europe's only other edge is america: all its registrations gone is a count of 0.
    gone = watch.count_reached(lambda count: count == 0, REGISTRATIONS_GONE_S + 30, start=seen[0] + 1)
    watch.stop()
    bob.process.terminate()
    return {
        "callEndedAfterS": (ended[1] - killed) if ended else None,
        "callError": (outcome.get("error") or {}).get("code"),
        "registrationsGoneAfterS": (gone[1] - killed) if gone else None,
    }


def rolling_restart(lab: EdgesLab, binary: Path, secret: str, edges: dict[str, Edge], listeners_per_edge: int,
                    calls_per_batch: int, call_seconds: int) -> dict:
    """Listeners on both edges (each with the other as its fallback); for each edge in turn, a
    batch of calls across the edges is connected, the edge gets SIGTERM, drains and exits, and
    is started again. Every call must end as it would have (its duration), and every listener
    be registered at the end."""
    out = lab.workdir
    europe, america = edges["europe"], edges["america"]
    listeners = []
    for index in range(listeners_per_edge):
        listeners.append(listen(lab, binary, secret, "ca", f"eu{index}", europe, america, out / f"roll-listen-eu{index}.log"))
        listeners.append(listen(lab, binary, secret, "cb", f"am{index}", america, europe, out / f"roll-listen-am{index}.log"))
    time.sleep(0.5)  # the registrations reach the other edge
    calls: list[Caller] = []
    drains = []
    for round_index, name in enumerate(("europe", "america")):
        edge = edges[name]
        batch = []
        for index in range(calls_per_batch):
            # Each call crosses the edges: a caller on one, its callee listening on the other.
            if index % 2 == 0:
                batch.append(place_call(lab, binary, secret, "ca", europe, f"c{round_index}-{index}", f"am{index % listeners_per_edge}",
                                        call_seconds, out / f"roll-call-{round_index}-{index}.log"))
            else:
                batch.append(place_call(lab, binary, secret, "cb", america, f"c{round_index}-{index}", f"eu{index % listeners_per_edge}",
                                        call_seconds, out / f"roll-call-{round_index}-{index}.log"))
        for caller in batch:
            if caller.connected() is None:
                raise LabError("a call of the rolling restart did not connect: see roll-call-*.log")
        calls += batch
        terminated = time.time()
        edge.process.terminate()
        try:
            edge.process.wait(timeout=DRAIN_LIMIT_S + 15)
        except subprocess.TimeoutExpired:
            raise LabError(f"{name} did not stop within its drain limit")
        exited = time.time()
        edges[name] = Edge(lab, binary, secret, edge.host, name, EDGE_A if name == "europe" else EDGE_B, extra=edge.extra,
                           log_suffix=f"-{round_index + 1}")
        europe, america = edges["europe"], edges["america"]
        restarted = time.time()
        # The clients it had register again (on the other edge) before the next round's calls.
        deadline = time.time() + 70
        while time.time() < deadline and not all(lst.registered() for lst in listeners):
            time.sleep(0.1)
        last = max((lst.registrations()[-1][0] for lst in listeners if lst.registrations()), default=terminated)
        drains.append({"edge": name, "drainedInS": exited - terminated, "restartedInS": restarted - exited,
                       "clientsRegisteredAgainInS": last - terminated})
        time.sleep(0.5)  # their registrations reach the other edge
    outcomes = [caller.finish(timeout=call_seconds + 60) for caller in calls]
    dropped = [o for o in outcomes if o.get("error") or o.get("connectMilliseconds") is None]
    # Every listener re-registers within its 60 s of retries; wait for each to be registered.
    deadline = time.time() + 70
    while time.time() < deadline and not all(lst.registered() for lst in listeners):
        time.sleep(0.2)
    registered = [lst for lst in listeners if lst.registered()]
    moved = sum(1 for lst in listeners if len(lst.registrations()) > 1)
    for lst in listeners:
        lst.process.terminate()
    return {
        "calls": len(outcomes), "dropped": len(dropped), "droppedErrors": [(o.get("error") or {}).get("code") for o in dropped],
        "listeners": len(listeners), "registeredAtEnd": len(registered), "registeredAgain": moved, "drains": drains,
    }
