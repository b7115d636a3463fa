"""UDP packet-processing efficiency of the edge beside a minimal C echo and coturn, with one
generator (Benchmarks/Load/loadgen.c) and one packet pattern; see Benchmarks/Load/README.md.

    scripts/bench-load [--preflight PATH] [--sessions 1000,2000] [--duration 10] [--rounds 3]
                       [--find-max] [--quick] [--check-ratio 0.7] [--servers edge,echo,turn] [--json OUT]

Compiles the C into .build/load/, runs each server pinned to CPU 0 with the generator on CPU 1,
and prints one table. Each server is measured --rounds times, in turn, and the rounds pooled: one
server's CPU per packet moves by a tenth or more from one window to the next on this machine (how
its wake-ups fall), and taking turns spreads that drift over every server alike. --find-max then
searches each server's highest clean rate in a pass of its own. --quick (CI): 1000 sessions,
3 rounds of 3 s, no search. --check-ratio R exits
1 when the edge's packets per CPU-second is below R times the C echo's in the same run, or when
either loses more than 1 %. Exit status: 0 fine; 1 a server failed, a check missed or the C did not
compile; 2 a bad argument or no C compiler. Loopback only; Python standard library only. Run as
root: coturn's file limit and the generator's 4 MB socket buffers need it (without, smaller ones).
"""
import argparse
import json
import os
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SOURCES = ROOT / "Benchmarks" / "Load"
OUT = ROOT / ".build" / "load"
NAMES = {"edge": "edge", "echo": "C echo", "turn": "coturn"}
SERVER_CPU, GENERATOR_CPU = "0", "1"


class ServerFailed(Exception):
    pass


def compile_all() -> None:
    cc = shutil.which("cc")
    if cc is None:
        print("bench-load: no C compiler (cc) on PATH; install gcc or clang", file=sys.stderr)
        sys.exit(2)
    OUT.mkdir(parents=True, exist_ok=True)
    # The generator's calls mode protects SRTP with OpenSSL's libcrypto (libssl-dev's headers).
    programs = {"loadgen": (["loadgen.c", "calls.c", "selftest.c", "srtp_gcm.c", "kernel_work.c"], ["-lm", "-lcrypto"]),
                "echo": (["echo.c"], [])}
    for name, (sources, libs) in programs.items():
        argv = [cc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(OUT / name)] + [str(SOURCES / s) for s in sources] + libs
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"bench-load: compiling {name} ({', '.join(sources)}) failed:\n{done.stderr}")
    # The generator's own parsers, against hand-made packets: cheap, and a broken parser would
    # otherwise read as a server losing every packet.
    test = subprocess.run([str(OUT / "loadgen"), "--self-test"], capture_output=True, text=True)
    if test.returncode != 0:
        sys.exit(f"bench-load: loadgen --self-test failed:\n{test.stderr}")


def start(argv: list[str], **kw) -> subprocess.Popen:
    # Its own process group, so that stopping it also stops whatever it started (the edge).
    return subprocess.Popen(argv, start_new_session=True, **kw)


def stop(p: subprocess.Popen | None) -> None:
    if p is None or p.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def free_port() -> int:
    # coturn listens on UDP and TCP: a port free for both.
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            u.bind(("127.0.0.1", 0))
            port = u.getsockname()[1]
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
                try:
                    t.bind(("127.0.0.1", port))
                    return port
                except OSError:
                    continue
    raise ServerFailed("no free port for coturn")


def stun_answers(port: int) -> bool:
    request = struct.pack("!HHI12s", 0x0001, 0, 0x2112A442, os.urandom(12))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(0.2)
        try:
            s.sendto(request, ("127.0.0.1", port))
            return s.recv(2048)[8:20] == request[8:20]
        except OSError:
            return False


def raise_file_limit() -> None:
    # Each TURN allocation is a socket; coturn sizes its session table from this limit (about
    # half of it). Raising the hard limit needs CAP_SYS_RESOURCE; else the hard limit it is.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (65536, max(hard, 65536)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Run:
    def __init__(self, args):
        self.args = args
        self.results: dict[str, list[dict]] = {}
        self.failures: dict[str, str] = {}
        # The round being run (rows are tagged with it), and whether this pass searches the highest
        # clean rate (a pass of its own, after the rounds).
        self.round = 0
        self.searching = False
        self.temp = Path(tempfile.mkdtemp(prefix="bench-load-"))

    def generator_args(self, server: str, max_sessions: int) -> list[str]:
        a = self.args
        argv = ["--sessions", ",".join(map(str, a.steps)), "--duration", str(a.duration), "--name", server,
                "--cpu", GENERATOR_CPU, "--server-cpus", SERVER_CPU]
        if self.searching:
            argv += ["--find-max", "--max-sessions", str(max_sessions)]
        return argv

    def generate(self, server: str, argv: list[str], server_proc: subprocess.Popen | None) -> None:
        print(f"bench-load: {NAMES[server]}: {' '.join(argv)}", file=sys.stderr, flush=True)
        gen = start(argv, stdout=subprocess.PIPE, text=True)
        rows = self.results.setdefault(server, [])
        try:
            assert gen.stdout is not None
            for line in gen.stdout:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        row = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    if row.get("server") == server:
                        row["round"] = self.round
                        row["search"] = self.searching
                        rows.append(row)
            gen.wait()
        finally:
            stop(gen)
        if gen.returncode != 0:
            died = server_proc is not None and server_proc.poll() is not None
            raise ServerFailed(f"the generator exited with {gen.returncode}" + ("; the server had exited" if died else ""))

    def run_echo(self) -> None:
        server = start([str(OUT / "echo"), "127.0.0.1", "0"], stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            words = server.stdout.readline().split()
            if len(words) != 3 or words[0] != "listening":
                raise ServerFailed(f"echo did not start (exit {server.poll()})")
            argv = [str(OUT / "loadgen"), "--mode", "echo", "--target", f"{words[1]}:{words[2]}",
                    "--server-pid", str(server.pid)] + self.generator_args("echo", self.args.max_sessions)
            self.generate("echo", argv, server)
        finally:
            stop(server)

    def run_turn(self) -> None:
        if shutil.which("turnserver") is None:
            raise ServerFailed("turnserver (coturn) is not installed")
        port, log = free_port(), self.temp / "turnserver.log"
        # No authentication (the generator holds no credentials); loopback peers allowed, since
        # the generator's peer socket is on 127.0.0.1; one relay thread (README: why).
        argv = ["turnserver", "-n", "--no-auth", "--listening-ip", "127.0.0.1", "--relay-ip", "127.0.0.1",
                "--listening-port", str(port), "--allow-loopback-peers", "--no-cli", "--no-tls", "--no-dtls",
                "--min-port", "20000", "--max-port", "60000", "--relay-threads", "1", "--no-stdout-log",
                "--simple-log", "--log-file", str(log), "--pidfile", str(self.temp / "turnserver.pid")]
        server = start(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=raise_file_limit)
        try:
            deadline = time.monotonic() + 10
            while not stun_answers(port):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise ServerFailed(f"coturn did not start; see {log}")
                time.sleep(0.05)
            gen = [str(OUT / "loadgen"), "--mode", "turn", "--target", f"127.0.0.1:{port}",
                   "--server-pid", str(server.pid)] + self.generator_args("turn", self.args.max_sessions)
            self.generate("turn", gen, server)
        finally:
            stop(server)

    def run_edge(self) -> None:
        preflight = Path(self.args.preflight)
        if not os.access(preflight, os.X_OK):
            raise ServerFailed(f"no preflight binary at {preflight} (build it: swift build -c release)")
        helptext = subprocess.run([str(preflight), "load", "--help"], capture_output=True, text=True).stdout
        if "--generator" not in helptext:
            raise ServerFailed(f"{preflight} has no `load --generator` yet (rebuild it)")
        a = self.args
        needed = a.edge_max_sessions if self.searching else max(a.steps)
        argv = [str(preflight), "load", "--sessions", str(needed), "--generator", str(OUT / "loadgen"), "--"]
        self.generate("edge", argv + self.generator_args("edge", needed), None)

    def run(self, server: str) -> None:
        try:
            {"echo": self.run_echo, "turn": self.run_turn, "edge": self.run_edge}[server]()
        except ServerFailed as e:
            self.failures[server] = str(e)
            print(f"bench-load: {NAMES[server]} failed: {e}", file=sys.stderr, flush=True)


def fmt_int(x) -> str:
    return "-" if x is None else f"{x:,.0f}"


LABELS = ["  packets/s each way", "  server CPU", "  packets per CPU-second", "  syscalls per packet",
          "  wake-ups per packet", "  p50 / p99 latency", "  loss"]


def fmt_ratio(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def cell_lines(row: dict | None) -> list[str]:
    if row is None:
        return ["-"] * len(LABELS)
    cpu = row.get("server_cpu_percent")
    return [fmt_int(row["pps_in"]) + (f" / {fmt_int(row['pps_out'])}" if abs(row["pps_in"] - row["pps_out"]) >= 1 else ""),
            "-" if cpu is None else f"{cpu:.1f} %",
            fmt_int(row.get("packets_per_cpu_second")),
            fmt_ratio(row.get("syscalls_per_packet")),
            fmt_ratio(row.get("wakeups_per_packet")),
            f"{row['p50_ms']:.2f} / {row['p99_ms']:.2f} ms",
            f"{row['loss_percent']:.3f} %" + (" (gen. late)" if row.get("generator_limited") else "")]


def round_row(rows: list[dict], sessions: int, clean: bool = False) -> dict | None:
    """The last measurement at that count where the generator kept its schedule (it measures a
    step again when it did not), else the last one; with `clean`, the last clean one."""
    found = [r for r in rows if r.get("sessions") == sessions and "pps_in" in r]
    kept = [r for r in found if not r.get("generator_limited")]
    if clean:
        found = kept = [r for r in kept if r["loss_percent"] <= 0.1]
    return (kept or found or [None])[-1]


def round_rows(rows: list[dict], sessions: int) -> list[dict]:
    """Each round's measurement at that count (the fixed steps, not the search), round by round."""
    fixed = [r for r in rows if not r.get("search")]
    found = (round_row([r for r in fixed if r.get("round") == n], sessions) for n in sorted({r.get("round") for r in fixed}))
    return [r for r in found if r is not None]


def step_row(rows: list[dict], sessions: int) -> dict | None:
    """The rounds at that count pooled: packets and CPU-seconds summed (so packets per CPU-second
    is the whole run's), rates averaged, latency the median round's, loss over every packet."""
    rounds = round_rows(rows, sessions)
    if len(rounds) <= 1:
        return rounds[0] if rounds else None
    pooled = dict(rounds[-1])
    n = len(rounds)
    for key in ("pps_in", "pps_out", "server_cpu_percent"):
        values = [r.get(key) for r in rounds]
        pooled[key] = None if None in values else sum(values) / n
    cpu = [r.get("server_cpu_seconds") for r in rounds]
    rates = [r.get("packets_per_cpu_second") for r in rounds]
    if None in cpu or None in rates or not sum(cpu):
        pooled["packets_per_cpu_second"] = None
    else:
        pooled["packets_per_cpu_second"] = sum(p * c for p, c in zip(rates, cpu)) / sum(cpu)
    for key in ("p50_ms", "p99_ms", "max_ms"):
        pooled[key] = sorted(r[key] for r in rounds)[n // 2]
    sent, received = sum(r["sent"] for r in rounds), sum(r["received"] for r in rounds)
    pooled["loss_percent"] = 100 * (sent - received) / sent if sent else 0.0
    # Kernel work per packet over every round's packets, like packets per CPU-second.
    for key, total in (("syscalls_per_packet", "server_syscalls"), ("wakeups_per_packet", "server_wakeups")):
        counts = [r.get(total) for r in rounds]
        pooled[key] = None if None in counts or not sent + received else sum(counts) / (sent + received)
    pooled["generator_limited"] = any(r.get("generator_limited") for r in rounds)
    return pooled


def max_row(rows: list[dict]) -> dict | None:
    return next((r for r in rows if "highest_clean_sessions" in r), None)


def table(run: Run, servers: list[str]) -> str:
    labels = LABELS
    width = 22
    out = ["".ljust(26) + "".join(NAMES[s].ljust(width) for s in servers)]
    for sessions in run.args.steps:
        out.append(f"{sessions:,} sessions")
        cells = [cell_lines(step_row(run.results.get(s, []), sessions)) for s in servers]
        out += [labels[i].ljust(26) + "".join(c[i].ljust(width) for c in cells) for i in range(len(labels))]
    if run.args.find_max:
        out.append("highest clean (loss <= 0.1 %)")
        maxes = [max_row(run.results.get(s, [])) for s in servers]
        line = "  sessions".ljust(26)
        for m in maxes:
            line += ("-" if m is None else f"{m['highest_clean_sessions']:,} ({m['stopped_by']})").ljust(width)
        out.append(line)
        cells = [cell_lines(round_row([r for r in run.results.get(s, []) if r.get("search")], m["highest_clean_sessions"], clean=True)
                            if m else None)
                 for s, m in zip(servers, maxes)]
        out += [labels[i].ljust(26) + "".join(c[i].ljust(width) for c in cells) for i in range(len(labels))]
    for s in servers:
        if s in run.failures:
            out.append(f"{NAMES[s]}: FAILED: {run.failures[s]}")
    return "\n".join(out)


def comparison(run: Run) -> list[str]:
    edge, echo = run.results.get("edge", []), run.results.get("echo", [])
    lines = []
    for sessions in run.args.steps:
        e, c = step_row(edge, sessions), step_row(echo, sessions)
        if e and c and e.get("packets_per_cpu_second") and c.get("packets_per_cpu_second"):
            pairs = zip(round_rows(edge, sessions), round_rows(echo, sessions))
            each = [100 * a["packets_per_cpu_second"] / b["packets_per_cpu_second"] for a, b in pairs
                    if a.get("packets_per_cpu_second") and b.get("packets_per_cpu_second")]
            lines.append(f"edge / C echo, packets per CPU-second at {sessions:,} sessions: "
                         f"{100 * e['packets_per_cpu_second'] / c['packets_per_cpu_second']:.0f} %"
                         + (f" (round by round: {', '.join(f'{x:.0f}' for x in each)} %)" if len(each) > 1 else ""))
    e, c = max_row(edge), max_row(echo)
    if e and c and c["highest_clean_pps"]:
        lines.append(f"edge / C echo, highest clean rate: {100 * e['highest_clean_pps'] / c['highest_clean_pps']:.0f} %"
                     + (" (C echo's is the generator's limit)" if c["stopped_by"] == "generator" else ""))
    return lines


def check(run: Run, ratio: float) -> list[str]:
    problems = []
    for server in ("edge", "echo"):
        if server in run.failures or not any("pps_in" in r for r in run.results.get(server, [])):
            problems.append(f"{NAMES[server]} has no results to check")
        for r in run.results.get(server, []):
            if not r.get("search") and r.get("loss_percent", 0) > 1:
                problems.append(f"{NAMES[server]} lost {r['loss_percent']:.2f} % at {r['sessions']:,} sessions (limit 1 %)")
    for sessions in run.args.steps:
        e, c = step_row(run.results.get("edge", []), sessions), step_row(run.results.get("echo", []), sessions)
        if not (e and c):
            continue
        pe, pc = e.get("packets_per_cpu_second"), c.get("packets_per_cpu_second")
        if not (pe and pc):
            problems.append(f"no CPU figure at {sessions:,} sessions")
        elif pe < ratio * pc:
            problems.append(f"edge at {sessions:,} sessions: {pe:,.0f} packets per CPU-second, below "
                            f"{ratio} x C echo's {pc:,.0f} ({100 * pe / pc:.0f} %)")
    return problems


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preflight", default=str(ROOT / ".build" / "release" / "preflight"), help="the preflight binary")
    p.add_argument("--sessions", default="1000,2000", help="session counts to measure, comma-separated")
    p.add_argument("--duration", type=float, default=10, help="seconds of each measurement window")
    p.add_argument("--find-max", action="store_true", help="also search each server's highest clean session count")
    p.add_argument("--max-sessions", type=int, default=16000, help="search cap for C echo and coturn (<= 16000)")
    p.add_argument("--edge-max-sessions", type=int, default=4000,
                   help="search cap for the edge: the sessions `preflight load` opens over signaling")
    p.add_argument("--rounds", type=int, default=3,
                   help="times each server is measured, in turn (edge, echo, turn, edge, ...): pooled, so that "
                        "a machine's drift reaches every server alike")
    p.add_argument("--quick", action="store_true", help="CI: 1000 sessions, 3 rounds of 3 s, no search")
    p.add_argument("--check-ratio", type=float, help="exit 1 when edge < R x C echo packets per CPU-second")
    p.add_argument("--servers", default="edge,echo,turn", help="which of edge, echo, turn to run, in order")
    p.add_argument("--json", help="also write every result object to this file")
    a = p.parse_args()
    try:
        a.steps = [int(x) for x in a.sessions.split(",") if x]
    except ValueError:
        p.error("--sessions takes comma-separated counts")
    a.servers = [s for s in a.servers.split(",") if s]
    if not a.steps or any(not 1 <= s <= 16000 for s in a.steps):
        p.error("--sessions counts must be 1 to 16000")
    if not a.servers or any(s not in NAMES for s in a.servers):
        p.error("--servers takes edge, echo and turn")
    if not 1 <= a.rounds <= 20:
        p.error("--rounds must be 1 to 20")
    if not 0.1 <= a.duration <= 3600:
        p.error("--duration must be 0.1 to 3600 s")
    if not (1 <= a.max_sessions <= 16000 and 1 <= a.edge_max_sessions <= 16000):
        p.error("--max-sessions and --edge-max-sessions must be 1 to 16000")
    if a.quick:
        a.steps, a.duration, a.find_max = [1000], 3.0, False
    if a.check_ratio is not None and not ({"edge", "echo"} <= set(a.servers)):
        p.error("--check-ratio compares the edge with C echo: --servers must include both")
    if len(os.sched_getaffinity(0)) < 2 or os.cpu_count() < 2:
        p.error("needs two CPUs: the server on CPU 0, the generator on CPU 1")
    return a


def measure(run: Run, servers: list[str], find_max: bool) -> bool:
    """Every server `--rounds` times in turn, then the search pass; whether it was interrupted
    (Ctrl-C or SIGTERM end the current server's run through its `finally`, which stops it)."""
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        for number in range(run.args.rounds):
            run.round = number
            for server in servers:
                if server not in run.failures:
                    run.run(server)
        if find_max:
            run.searching = True
            for server in servers:
                if server not in run.failures:
                    run.run(server)
    except KeyboardInterrupt:
        print("bench-load: interrupted; partial results follow", file=sys.stderr)
        return True
    return False


def report(run: Run, servers: list[str], table_text: str, comparisons: list[str], interrupted: bool) -> int:
    """Prints the table and comparisons, writes --json, keeps the logs of a failed run; the
    exit status before any check."""
    print()
    print(table_text)
    for line in comparisons:
        print(line)
    if run.args.json:
        rows = [r for s in servers for r in run.results.get(s, [])]
        Path(run.args.json).write_text(json.dumps({"results": rows, "failures": run.failures}, indent=1) + "\n")
    status = 1 if run.failures or interrupted else 0
    if status == 0:
        shutil.rmtree(run.temp, ignore_errors=True)  # else kept: coturn's and rtpengine's logs are there
    else:
        print(f"bench-load: logs kept in {run.temp}", file=sys.stderr)
    return status


def main() -> int:
    args = parse_args()
    compile_all()
    run = Run(args)
    interrupted = measure(run, args.servers, args.find_max)
    status = report(run, args.servers, table(run, args.servers), comparison(run), interrupted)
    if args.check_ratio is not None:
        problems = check(run, args.check_ratio)
        for problem in problems:
            print(f"CHECK FAILED: {problem}")
        if problems:
            status = 1
        else:
            print(f"check passed: edge >= {args.check_ratio} x C echo packets per CPU-second, loss <= 1 %")
    return status
