"""The edge's call bridge beside rtpengine, the media relay of SIP deployments, under one
generator (Benchmarks/Load/loadgen.c, calls mode) and one packet pattern: both parties of N
calls, 172-byte RTP every 20 ms each way, SRTP (AEAD_AES_128_GCM, RFC 7714) or plain RTP. The C
echo at as many sessions as the calls have legs is the ceiling of plain forwarding.

    scripts/bench-load --calls 250,500 [--find-max] [--rounds 3] [--duration 10]
                       [--servers edge-srtp,rtpengine-srtp,edge-plain,rtpengine-plain,echo]
                       [--quick] [--check-ratio R] [--check-echo-ratio R] [--json OUT]

Each server is measured --rounds times in turn (edge SRTP, rtpengine SRTP, edge plain, rtpengine
plain, C echo, then again), pinned to CPU 0 with the generator on CPU 1, and the rounds pooled
(labkit/loadbench.py says why). The edge sets its calls up over signaling (`preflight load --calls
N --generator`); rtpengine over its ng protocol (labkit/rtpengine.py, which makes it decrypt and
re-encrypt SRTP as the edge does). --find-max then searches each server's highest clean number
of calls (loss <= 0.1 % over the window). --quick (CI): 500 calls, 3 rounds of 3 s, no search.
--check-ratio R exits 1 when the edge's packets per CPU-second is below R times rtpengine's
(SRTP, and plain), --check-echo-ratio R when the edge's plain bridge is below R times the C echo's,
or when any of them loses more than 1 %. Needs root (rtpengine, 4 MB socket buffers).
"""
import argparse
import os
import shutil
import socket
import sys
from pathlib import Path

from labkit import loadbench, rtpengine
from labkit.loadbench import GENERATOR_CPU, OUT, SERVER_CPU, ServerFailed, cell_lines, max_row, round_row, step_row

SERVERS = {"edge-srtp": "edge SRTP", "rtpengine-srtp": "rtpengine SRTP", "edge-plain": "edge plain",
           "rtpengine-plain": "rtpengine plain", "echo": "C echo"}


def generator_port() -> int:
    """A UDP port for the generator outside rtpengine's media range (and the kernel's ephemeral
    range, which rtpengine's overlaps): the SDPs name it before the generator binds it."""
    for port in range(61000, 65500):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.bind(("0.0.0.0", port))
                return port
            except OSError:
                continue
    raise ServerFailed("no free UDP port above 61000 for the generator")


class CallRun(loadbench.Run):
    def __init__(self, args):
        super().__init__(args)
        loadbench.NAMES.update(SERVERS)

    def call_args(self, server: str, max_calls: int) -> list[str]:
        a = self.args
        argv = ["--calls", ",".join(map(str, a.calls)), "--duration", str(a.duration), "--name", server,
                "--cpu", GENERATOR_CPU, "--server-cpus", SERVER_CPU]
        if self.searching:
            argv += ["--find-max", "--max-calls", str(max_calls)]
        return argv

    def run_edge_calls(self, server: str) -> None:
        preflight = Path(self.args.preflight)
        if not os.access(preflight, os.X_OK):
            raise ServerFailed(f"no preflight binary at {preflight} (build it: swift build -c release)")
        a = self.args
        needed = a.max_calls if self.searching else max(a.calls)
        argv = [str(preflight), "load", "--calls", str(needed), "--generator", str(OUT / "loadgen")]
        argv += (["--plain"] if server == "edge-plain" else []) + ["--"]
        self.generate(server, argv + self.call_args(server, needed), None)

    def run_rtpengine(self, server: str) -> None:
        if shutil.which("rtpengine") is None:
            raise ServerFailed("rtpengine is not installed (Debian: apt-get install rtpengine-daemon)")
        a = self.args
        srtp = server == "rtpengine-srtp"
        try:
            engine = rtpengine.start_rtpengine(rtpengine_ng_port(), cpus={int(SERVER_CPU)}, workdir=self.temp)
        except rtpengine.RtpengineError as e:
            raise ServerFailed(str(e)) from None
        try:
            needed = min(a.max_calls if self.searching else max(a.calls), rtpengine.capacity(engine))
            port = generator_port()
            with engine.client() as client:
                try:
                    lines = rtpengine.setup_calls(client, needed, port, srtp)
                except (rtpengine.NgError, rtpengine.RtpengineError, ValueError) as e:
                    raise ServerFailed(f"setting up {needed} calls: {e}") from None
                calls_file = rtpengine.write_calls_file(self.temp / f"{server}.calls", lines)
                argv = [str(OUT / "loadgen"), "--mode", "calls", "--calls-file", str(calls_file), "--port", str(port),
                        "--server-pid", str(engine.pid)] + self.call_args(server, needed)
                self.generate(server, argv, engine.process)
                rtpengine.teardown_calls(client, needed)
        finally:
            engine.stop()

    def run(self, server: str) -> None:
        try:
            if server == "echo":
                self.run_echo()
            elif server.startswith("edge-"):
                self.run_edge_calls(server)
            else:
                self.run_rtpengine(server)
        except ServerFailed as e:
            self.failures[server] = str(e)
            print(f"bench-load: {SERVERS[server]} failed: {e}", file=sys.stderr, flush=True)


def rtpengine_ng_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def table(run: CallRun, servers: list[str]) -> str:
    labels, width = loadbench.LABELS, 20
    out = ["".ljust(26) + "".join(SERVERS[s].ljust(width) for s in servers)]
    for calls in run.args.calls:
        out.append(f"{calls:,} calls ({2 * calls:,} legs, {100 * calls:,} packets/s each way)")
        cells = [cell_lines(step_row(run.results.get(s, []), 2 * calls)) for s in servers]
        out += [labels[i].ljust(26) + "".join(c[i].ljust(width) for c in cells) for i in range(len(labels))]
    if run.args.find_max:
        out.append("highest clean (loss <= 0.1 % over the window)")
        maxes = [max_row(run.results.get(s, [])) for s in servers]
        line = "  calls".ljust(26)
        for m in maxes:
            line += ("-" if m is None else f"{m['highest_clean_sessions'] // 2:,} ({m['stopped_by']})").ljust(width)
        out.append(line)
        cells = [cell_lines(round_row([r for r in run.results.get(s, []) if r.get("search")], m["highest_clean_sessions"], clean=True)
                            if m else None) for s, m in zip(servers, maxes)]
        out += [labels[i].ljust(26) + "".join(c[i].ljust(width) for c in cells) for i in range(len(labels))]
    for s in servers:
        if s in run.failures:
            out.append(f"{SERVERS[s]}: FAILED: {run.failures[s]}")
    return "\n".join(out)


def ratio(run: CallRun, a: str, b: str, calls: int) -> tuple[float, list[float]] | None:
    """a's packets per CPU-second over b's, pooled and round by round."""
    ra, rb = step_row(run.results.get(a, []), 2 * calls), step_row(run.results.get(b, []), 2 * calls)
    if not (ra and rb and ra.get("packets_per_cpu_second") and rb.get("packets_per_cpu_second")):
        return None
    pairs = zip(loadbench.round_rows(run.results.get(a, []), 2 * calls), loadbench.round_rows(run.results.get(b, []), 2 * calls))
    each = [x["packets_per_cpu_second"] / y["packets_per_cpu_second"] for x, y in pairs
            if x.get("packets_per_cpu_second") and y.get("packets_per_cpu_second")]
    return ra["packets_per_cpu_second"] / rb["packets_per_cpu_second"], each


def comparison(run: CallRun) -> list[str]:
    lines = []
    for calls in run.args.calls:
        for a, b in (("edge-srtp", "rtpengine-srtp"), ("edge-plain", "rtpengine-plain"), ("edge-plain", "echo"),
                     ("rtpengine-plain", "echo")):
            found = ratio(run, a, b, calls)
            if found:
                pooled, each = found
                lines.append(f"{SERVERS[a]} / {SERVERS[b]}, packets per CPU-second at {calls:,} calls: {100 * pooled:.0f} %"
                             + (f" (round by round: {', '.join(f'{100 * x:.0f}' for x in each)} %)" if len(each) > 1 else ""))
        e, r = (step_row(run.results.get(s, []), 2 * calls) for s in ("edge-srtp", "rtpengine-srtp"))
        if e and r:
            lines.append(f"p99 forwarding latency at {calls:,} calls, SRTP: edge {e['p99_ms']:.2f} ms, rtpengine {r['p99_ms']:.2f} ms "
                         f"(edge {e['p99_ms'] - r['p99_ms']:+.2f} ms)")
    echo = step_row(run.results.get("echo", []), 2 * max(run.args.calls))
    if echo and echo.get("packets_per_cpu_second"):
        lines.append(f"the day's C echo: {echo['packets_per_cpu_second']:,.0f} packets per CPU-second at {2 * max(run.args.calls):,} sessions")
    for a, b in (("edge-srtp", "rtpengine-srtp"), ("edge-plain", "rtpengine-plain")):
        ma, mb = max_row(run.results.get(a, [])), max_row(run.results.get(b, []))
        if ma and mb:
            lines.append(f"highest clean calls: {SERVERS[a]} {ma['highest_clean_sessions'] // 2:,} ({ma['stopped_by']}), "
                         f"{SERVERS[b]} {mb['highest_clean_sessions'] // 2:,} ({mb['stopped_by']})")
    return lines


def check(run: CallRun, args) -> list[str]:
    problems = []
    for server in args.servers:
        if server in run.failures or not any("pps_in" in r for r in run.results.get(server, [])):
            problems.append(f"{SERVERS[server]} has no results to check")
        for r in run.results.get(server, []):
            if not r.get("search") and r.get("loss_percent", 0) > 1:
                problems.append(f"{SERVERS[server]} lost {r['loss_percent']:.2f} % at {r['sessions'] // 2:,} calls (limit 1 %)")
    pairs = []
    if args.check_ratio is not None:
        pairs += [("edge-srtp", "rtpengine-srtp", args.check_ratio), ("edge-plain", "rtpengine-plain", args.check_ratio)]
    if args.check_echo_ratio is not None:
        pairs.append(("edge-plain", "echo", args.check_echo_ratio))
    for a, b, limit in pairs:
        if a not in args.servers or b not in args.servers:
            continue
        for calls in args.calls:
            found = ratio(run, a, b, calls)
            if found is None:
                problems.append(f"no packets per CPU-second to compare for {SERVERS[a]} and {SERVERS[b]} at {calls:,} calls")
            elif found[0] < limit:
                problems.append(f"{SERVERS[a]} at {calls:,} calls: {100 * found[0]:.0f} % of {SERVERS[b]}'s packets per CPU-second, "
                                f"below {100 * limit:.0f} %")
    return problems


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench-load --calls", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preflight", default=str(loadbench.ROOT / ".build" / "release" / "preflight"), help="the preflight binary")
    p.add_argument("--calls", default="250,500", help="call counts to measure, comma-separated")
    p.add_argument("--duration", type=float, default=10, help="seconds of each measurement window")
    p.add_argument("--find-max", action="store_true", help="also search each server's highest clean number of calls")
    p.add_argument("--max-calls", type=int, default=4000, help="the search's cap (rtpengine: also its file limit's)")
    p.add_argument("--rounds", type=int, default=3, help="times each server is measured, in turn")
    p.add_argument("--quick", action="store_true", help="CI: 500 calls, 3 rounds of 3 s, no search")
    p.add_argument("--check-ratio", type=float, help="exit 1 when the edge < R x rtpengine's packets per CPU-second (SRTP, plain)")
    p.add_argument("--check-echo-ratio", type=float, help="exit 1 when the edge's plain bridge < R x the C echo's packets per CPU-second")
    p.add_argument("--servers", default=",".join(SERVERS), help="which of " + ", ".join(SERVERS) + ", in order")
    p.add_argument("--json", help="also write every result object to this file")
    a = p.parse_args()
    try:
        a.calls = [int(x) for x in a.calls.split(",") if x]
    except ValueError:
        p.error("--calls takes comma-separated counts")
    a.servers = [s for s in a.servers.split(",") if s]
    if not a.calls or any(not 1 <= c <= 8000 for c in a.calls):
        p.error("--calls counts must be 1 to 8000")
    if not a.servers or any(s not in SERVERS for s in a.servers):
        p.error("--servers takes " + ", ".join(SERVERS))
    if not 1 <= a.rounds <= 20:
        p.error("--rounds must be 1 to 20")
    if not 0.1 <= a.duration <= 3600:
        p.error("--duration must be 0.1 to 3600 s")
    if not 1 <= a.max_calls <= 8000:
        p.error("--max-calls must be 1 to 8000")
    if a.quick:
        a.calls, a.duration, a.find_max = [500], 3.0, False
    if len(os.sched_getaffinity(0)) < 2 or (os.cpu_count() or 0) < 2:
        p.error("needs two CPUs: the server on CPU 0, the generator on CPU 1")
    # What loadbench's echo run reads.
    a.steps, a.max_sessions, a.edge_max_sessions = [2 * c for c in a.calls], min(16000, 2 * a.max_calls), 0
    return a


def main() -> int:
    args = parse_args()
    loadbench.compile_all()
    run = CallRun(args)
    interrupted = loadbench.measure(run, args.servers, args.find_max)
    status = loadbench.report(run, args.servers, table(run, args.servers), comparison(run), interrupted)
    if args.check_ratio is not None or args.check_echo_ratio is not None:
        problems = check(run, args)
        for problem in problems:
            print(f"CHECK FAILED: {problem}")
        if problems:
            status = 1
        else:
            print("check passed: " + ", ".join(
                ([f"edge >= {args.check_ratio} x rtpengine"] if args.check_ratio is not None else [])
                + ([f"edge plain >= {args.check_echo_ratio} x C echo"] if args.check_echo_ratio is not None else []))
                + " packets per CPU-second, loss <= 1 %")
    return status
