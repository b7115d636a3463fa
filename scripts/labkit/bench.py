"""The accuracy benchmark: each scenario's impairment in the lab, a preflight test and an irtt run
over the same path at the same cadence, both compared with the ground truth of the captures."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

from labkit import bandwidth as BW
from labkit import truth as T
from labkit.impair import DirectionSpec
from labkit.lab import CLIENT_IP, EDGE_IP, Lab, LabError
from labkit.pcap import read_udp

API_KEY = "SK00000000000000000000000000000000"
ACCOUNT = "AC00000000000000000000000000000000"
APP = "AP0000000000000000000000000000echo"
IRTT_PORT = 2112
IRTT_LENGTH = 172  # bytes of UDP payload, as a PCMU 20 ms RTP packet
IRTT_INTERVAL = "20ms"


@dataclasses.dataclass
class Scenario:
    name: str
    title: str
    up: DirectionSpec = dataclasses.field(default_factory=DirectionSpec)
    down: DirectionSpec = dataclasses.field(default_factory=DirectionSpec)
    rate_kbit: float | None = None


def scenarios() -> list[Scenario]:
    S = DirectionSpec
    return [
        Scenario("clean", "clean"),
        Scenario("rtt40", "40 ms RTT", S(delay=20), S(delay=20)),
        # FIFO: ±30 ms uniform without reordering gives an RFC 3550 jitter near 15 ms.
        Scenario("rtt120-j15", "120 ms RTT, 15 ms jitter", S(delay=60, jitter=30), S(delay=60, jitter=30)),
        Scenario("loss2", "2 % random loss", S(loss=0.02), S(loss=0.02)),
        Scenario("bursty5-rtt150", "5 % bursty loss, 150 ms RTT",
                 dataclasses.replace(S.bursty(0.05, 3), delay=75), dataclasses.replace(S.bursty(0.05, 3), delay=75)),
        Scenario("asym3-0", "3 % loss up, 0 % down", S(loss=0.03), S()),
        # Not FIFO: ±60 ms reorders packets 20 ms apart; RFC 3550 jitter near 40 ms.
        Scenario("rtt300-j40", "300 ms RTT, 40 ms jitter", S(delay=150, jitter=60, fifo=False),
                 S(delay=150, jitter=60, fifo=False)),
        Scenario("shaper200k", "200 kbit/s shaper", rate_kbit=200),
    ]


# -- running ---------------------------------------------------------------------------------------

def preflight_binary(repo: Path) -> Path:
    if os.environ.get("PREFLIGHT_BIN"):
        return Path(os.environ["PREFLIGHT_BIN"])
    subprocess.run(["swift", "build", "-c", "release", "--product", "preflight"], cwd=repo, check=True,
                   stdout=sys.stderr)
    bin_path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=repo, check=True,
                              capture_output=True, text=True).stdout.strip()
    return Path(bin_path) / "preflight"


class Bench:
    def __init__(self, lab: Lab, binary: Path, out: Path, duration: int, fault: str | None, codec: str = "PCMU"):
        self.lab, self.binary, self.out, self.duration, self.fault = lab, binary, out, duration, fault
        self.codec = codec
        self.secret = secrets.token_hex(32)

    def start_servers(self) -> None:
        edge = self.lab.popen("edge", [str(self.binary), "serve", "--host", EDGE_IP, "--port", "0", "--media-port", "0",
                                       "--api-key", API_KEY, "--api-secret", self.secret, "--account", ACCOUNT,
                                       "--application", f"{APP}=echo",
                                       "--max-duration", "300", "--log-level", "warning"],
                              stdout=subprocess.PIPE, stderr=open(self.out / "edge.log", "w"), text=True)
        assert edge.stdout is not None
        lines = [edge.stdout.readline().strip(), edge.stdout.readline().strip()]
        url = next((l.split(" ", 1)[1] for l in lines if l.startswith("signaling ")), None)
        if url is None:
            raise LabError(f"the edge did not start: {lines}; see {self.out / 'edge.log'}")
        self.url = url
        irtt = self.lab.popen("edge", ["irtt", "server", "-b", f"{EDGE_IP}:{IRTT_PORT}"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert irtt.stdout is not None
        lines = [irtt.stdout.readline() for _ in range(2)]  # ServerStart, then "[ListenerStart] … listener on …"
        started = " ".join(l.strip() for l in lines)
        if "ListenerStart" not in started:
            raise LabError(f"the irtt server did not start: {started.strip()}")
        token = subprocess.run([str(self.binary), "token", "--identity", "bench", "--api-key", API_KEY,
                                "--api-secret", self.secret, "--account", ACCOUNT, "--application", APP, "--ttl", "86400"],
                               capture_output=True, text=True, check=True)
        self.token = token.stdout.strip()
        time.sleep(0.3)

    def run_preflight(self, label: str, duration: str | None = None, extra: tuple[str, ...] = ()) -> dict:
        argv = [str(self.binary), "run", "--edge-url", self.url, "--token", self.token,
                "--duration", duration or str(self.duration), "--codec", self.codec, "--json", *extra]
        if self.fault:
            argv += ["--measurement-fault", self.fault]
        result = self.lab.run_on("client", argv, timeout=self.duration + 60)
        (self.out / f"{label}-preflight.json").write_text(result.stdout)
        (self.out / f"{label}-preflight.log").write_text(result.stderr)
        if result.returncode != 0:
            raise LabError(f"preflight failed in {label}: {result.stderr.strip().splitlines()[-1:]}")
        report = json.loads(result.stdout)
        codecs = {sample.get("codec") for sample in report.get("statsSamples", []) if sample.get("packetsReceived")}
        if codecs != {self.codec}:
            raise LabError(f"{label}: the test ran with {sorted(map(str, codecs))}, not {self.codec}")
        return report

    def run_irtt(self, label: str) -> dict:
        path = self.out / f"{label}-irtt.json"
        argv = ["irtt", "client", "-i", IRTT_INTERVAL, "-l", str(IRTT_LENGTH), "-d", f"{self.duration}s", "--fill=rand",
                "-Q", "-o", str(path), f"{EDGE_IP}:{IRTT_PORT}"]
        result = self.lab.run_on("client", argv, timeout=self.duration + 30)
        if result.returncode != 0:
            raise LabError(f"irtt failed in {label}: {result.stderr.strip()}")
        return json.loads(path.read_text())

    def flow_truth(self, captures: dict[str, Path], accept) -> T.FlowTruth:
        client = read_udp(captures["client"])
        edge = read_udp(captures["edge"])
        up = T.direction_truth(T.select(client, CLIENT_IP, EDGE_IP, accept), T.select(edge, CLIENT_IP, EDGE_IP, accept))
        down = T.direction_truth(T.select(edge, EDGE_IP, CLIENT_IP, accept), T.select(client, EDGE_IP, CLIENT_IP, accept))
        return T.FlowTruth(up, down)


def irtt_metrics(data: dict) -> dict:
    """irtt's own figures: mean RTT, loss per direction, and the RFC 3550 jitter of its one-way
    delays per direction (the clocks are one machine's, so irtt's one-way delays are valid)."""
    stats = data["stats"]
    trips = data.get("round_trips") or []

    def jitter(delay_key: str, order_key) -> float:
        rows = [t for t in trips if t.get("delay", {}).get(delay_key) is not None]
        rows.sort(key=order_key)
        series = T.rfc3550_jitter([t["delay"][delay_key] / 1e6 for t in rows])
        return sum(series) / len(series) if series else math.nan

    up_j = jitter("send", lambda t: t["timestamps"]["server"]["receive"]["wall"])
    down_j = jitter("receive", lambda t: t["timestamps"]["client"]["receive"]["wall"])
    # Loss per direction from irtt's own per-packet verdicts: its summary's downstream_loss_percent
    # came out as 1.2e18 on the reordering scenario (irtt 0.9.0). "true" (direction unknown: no
    # reply, no later server count) is counted upstream, where the captures put it.
    lost = [t.get("lost", "false") for t in trips]
    sent = len(lost)
    up_lost = lost.count("true_up") + lost.count("true")
    down_lost = lost.count("true_down")
    return {"rtt": stats["rtt"]["mean"] / 1e6 if stats["rtt"]["n"] else math.nan,
            "jitter_up": up_j, "jitter_down": down_j,
            "loss_up": 100 * up_lost / sent if sent else math.nan,
            "loss_down": 100 * down_lost / (sent - up_lost) if sent > up_lost else math.nan}


def preflight_metrics(report: dict) -> dict:
    up, down = report.get("uplink") or {}, report.get("downlink") or {}
    return {"rtt": report["networkStats"]["rtt"]["average"],
            "jitter_up": (up.get("jitter") or {}).get("average", math.nan),
            "jitter_down": (down.get("jitter") or {}).get("average", math.nan),
            "loss_up": up.get("packetsLostFraction", math.nan), "loss_down": down.get("packetsLostFraction", math.nan),
            "warnings": sorted({w["name"] for w in report.get("warnings", [])})}


def truth_metrics(flow: T.FlowTruth, report: dict | None = None) -> dict:
    """The ground truth's figures. Jitter is the same estimator as the tool's: with a Preflight
    report, the mean of the true RFC 3550 J read at its samples' instants (the uplink's J as the
    edge stood when it sent the newest echo received by then); for irtt, the mean over every packet."""
    jitter_up, jitter_down = flow.up.mean_jitter_ms, flow.down.mean_jitter_ms
    if report is not None:
        times = [int(float(s["timestamp"]) * 1e6) for s in report.get("statsSamples", [])]
        # The uplink J a sample shows is the edge's J when it sent the newest echo received by
        # then: read the truth at exactly that instant (one mean downlink delay earlier was off
        # by up to ±60 ms of downlink jitter, about 1 ms of J at rtt300-j40).
        up = flow.up.jitter_at(flow.down.latest_sent_before(times))
        down = flow.down.jitter_at(times)
        jitter_up = sum(up) / len(up) if up else math.nan
        jitter_down = sum(down) / len(down) if down else math.nan
    return {"rtt": flow.rtt_ms, "jitter_up": jitter_up, "jitter_down": jitter_down,
            "loss_up": flow.up.loss_percent, "loss_down": flow.down.loss_percent,
            "n_up": flow.up.sent, "n_down": flow.down.sent, "reordered_down": flow.down.reordered,
            "reordered_up": flow.up.reordered}


# -- targets ---------------------------------------------------------------------------------------

JITTER_FLOOR_MS = 0.3  # below it, 10 % is finer than the host's timer and capture resolution


def loss_bound(n: int) -> float:
    """Preflight vs the ground truth of the same packets: 0.5 pp for 500+ packets; a packet or two
    in flight at the test's end is the only allowed difference, so 2.5 packets' worth below 500."""
    return 0.5 if n >= 500 else 250.0 / max(n, 1)


def statistical_bound(spec: DirectionSpec, n: int) -> float:
    """4σ of the loss a channel configured as `spec` shows over n packets (pp): binomial for
    random loss; for Gilbert–Elliott, inflated by (1+ρ)/(1−ρ) with ρ = 1 − p − r (burst correlation)."""
    p = spec.expected_loss()
    var = p * (1 - p) / max(n, 1)
    if spec.uses_gilbert_elliott:
        rho = 1 - spec.ge_p - spec.ge_r
        var *= (1 + rho) / (1 - rho)
    return 400 * math.sqrt(var)


@dataclasses.dataclass
class Check:
    scenario: str
    metric: str
    truth_p: float
    preflight: float
    truth_i: float
    irtt: float
    target: str
    ok: bool

    @property
    def error(self) -> float:
        return self.preflight - self.truth_p


def evaluate(sc: Scenario, tp: dict, p: dict, ti: dict, i: dict, flow: T.FlowTruth) -> list[Check]:
    checks = []

    def add(metric, key, tolerance, slack, unit):
        err = abs(p[key] - tp[key])
        irtt_err = abs(i[key] - ti[key])
        ok_truth = err <= tolerance
        ok_irtt = err <= irtt_err + slack
        target = f"±{tolerance:.2f}{unit}, ≤ irtt+{slack:g}{unit}"
        checks.append(Check(sc.name, metric, tp[key], p[key], ti[key], i[key], target,
                            ok_truth and ok_irtt and not math.isnan(p[key])))

    add("rtt ms", "rtt", max(1.0, 0.03 * tp["rtt"]), 1.0, " ms")
    add("jitter up ms", "jitter_up", max(JITTER_FLOOR_MS, 0.1 * tp["jitter_up"]), 1.0, " ms")
    add("jitter down ms", "jitter_down", max(JITTER_FLOOR_MS, 0.1 * tp["jitter_down"]), 1.0, " ms")
    add("loss up %", "loss_up", loss_bound(tp["n_up"]), 0.5, " pp")
    add("loss down %", "loss_down", loss_bound(tp["n_down"]), 0.5, " pp")
    for metric, spec, key, n in (("loss up vs configured", sc.up, "loss_up", tp["n_up"]),
                                 ("loss down vs configured", sc.down, "loss_down", tp["n_down"])):
        configured = 100 * spec.expected_loss()
        bound = statistical_bound(spec, n)
        checks.append(Check(sc.name, metric, configured, p[key], configured, i[key], f"±{bound:.2f} pp (4σ, n={n})",
                            abs(p[key] - configured) <= max(bound, 1e-9) or (configured == 0 and p[key] <= loss_bound(n))))
    must, may = T.expected_warnings(flow)
    got = set(p["warnings"])
    checks.append(Check(sc.name, "warnings", math.nan, math.nan, math.nan, math.nan,
                        f"must {sorted(must) or '∅'} may {sorted(may - must) or '∅'} got {sorted(got) or '∅'}",
                        must <= got <= may))
    return checks


QUALITY_EDGES = (4.2, 4.1, 3.7, 3.1)  # CallQuality's band edges
EDGE_TIE = 0.05  # MOS: a band edge this close is a tie, decided by noise at any duration


def at_same_edge(a: float, b: float) -> bool:
    """Both mean MOS values sit within EDGE_TIE of the same band edge: a scenario on the edge
    between two bands, where no test length settles the band (loss2 read 4.15 / 4.22 / 4.19 at
    5 / 10 / 30 s around the 4.2 edge)."""
    return any(abs(a - e) <= EDGE_TIE and abs(b - e) <= EDGE_TIE for e in QUALITY_EDGES)


def verdicts(report: dict, marks=(2, 5, 10)) -> dict:
    """What a k-second test would have said, for each k and ("all") for the whole run: the
    callQuality of the first k samples' mean MOS, and the warnings the SDK's rules raise on them
    (a test's first k samples do not depend on its length)."""
    samples = report.get("statsSamples", [])

    def verdict(part):
        if not part:
            return None
        mean = sum(s["mos"] for s in part) / len(part)
        seconds = [{"rtt": s["rtt"], "jitter": s["jitter"], "loss": s["packetsLostFraction"]} for s in part]
        return {"quality": T.call_quality(mean), "mos": mean, "warnings": sorted(T.warnings_raised(seconds))}

    out = {k: verdict(samples[:k]) for k in marks if k <= len(samples)}
    out["all"] = verdict(samples)
    return out


# -- output ----------------------------------------------------------------------------------------

def fmt(v: float) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


def print_table(checks: list[Check], file=sys.stdout) -> None:
    print("| scenario | metric | ground truth | Preflight | Preflight's error | truth (irtt run) | irtt | irtt's error | target | |",
          file=file)
    print("|---|---|---|---|---|---|---|---|---|---|", file=file)
    for c in checks:
        if c.metric == "warnings":
            print(f"| {c.scenario} | warnings | | | | | | | {c.target} | {'ok' if c.ok else 'FAIL'} |", file=file)
            continue
        ierr = c.irtt - c.truth_i if not math.isnan(c.irtt) else math.nan
        print(f"| {c.scenario} | {c.metric} | {fmt(c.truth_p)} | {fmt(c.preflight)} | {c.error:+.2f} | {fmt(c.truth_i)} | "
              f"{fmt(c.irtt)} | {ierr:+.2f} | {c.target} | {'ok' if c.ok else 'FAIL'} |", file=file)


def main(argv: list[str] | None = None) -> int:
    if "--adaptive" in (argv if argv is not None else sys.argv[1:]):
        from labkit import adaptive
        return adaptive.main([a for a in (argv if argv is not None else sys.argv[1:]) if a != "--adaptive"])
    parser = argparse.ArgumentParser(prog="bench-accuracy", description="Preflight's measurements against the lab's ground truth and irtt.")
    parser.add_argument("--quick", action="store_true", help="10 s runs (CI); without it 30 s runs and time-to-verdict against 30 s")
    parser.add_argument("--duration", type=int, help="seconds per run (overrides --quick's 10 / the full 30)")
    parser.add_argument("--scenario", action="append", help="run only these scenarios (repeatable)")
    parser.add_argument("--seed", type=int, default=1, help="the impairments' random seed")
    parser.add_argument("--out", default=None, help="where to keep captures, logs and reports")
    parser.add_argument("--measurement-fault", dest="fault", choices=["reorder-as-lost", "whole-train", "payload-bytes"],
                        help="make Preflight measure wrongly on purpose: the benchmark must then fail "
                             "(reorder-as-lost: the preflight test; whole-train, payload-bytes: the bandwidth probe)")
    parser.add_argument("--bandwidth-only", action="store_true", help="run only the bandwidth scenarios (preflight probe, iperf3)")
    parser.add_argument("--no-bandwidth", action="store_true", help="skip the bandwidth scenarios")
    parser.add_argument("--codec", default="PCMU", choices=["PCMU", "opus"],
                        help="the test call's codec (the truth follows its packets either way)")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    args = parser.parse_args(argv)

    all_scenarios = scenarios()
    all_bandwidth = BW.bandwidth_scenarios()
    if args.list:
        for s in all_scenarios:
            print(f"{s.name:16} {s.title}")
        for b in all_bandwidth:
            print(f"{b.name:16} {b.title}")
        return 0
    probe_fault = args.fault in ("whole-train", "payload-bytes")
    chosen = [s for s in all_scenarios if not args.scenario or s.name in args.scenario]
    chosen_bandwidth = [b for b in all_bandwidth if not args.scenario or b.name in args.scenario]
    if args.bandwidth_only or probe_fault:
        chosen = []
    if args.no_bandwidth or args.fault == "reorder-as-lost":
        chosen_bandwidth = []
    unknown = set(args.scenario or []) - {s.name for s in all_scenarios} - {b.name for b in all_bandwidth}
    if unknown:
        print(f"error: unknown scenarios {sorted(unknown)}; --list shows them", file=sys.stderr)
        return 2
    for tool, needed in (("irtt", bool(chosen)), ("iperf3", bool(chosen_bandwidth))):
        if needed and shutil.which(tool) is None:
            print(f"error: {tool} is not installed (apt-get install {tool})", file=sys.stderr)
            return 2
    duration = args.duration or (10 if args.quick else 30)
    repo = Path(__file__).resolve().parents[2]
    out = Path(args.out or repo / ".build" / "bench-accuracy" / time.strftime("%Y%m%d-%H%M%S"))
    out.mkdir(parents=True, exist_ok=True)
    binary = preflight_binary(repo)

    checks: list[Check] = []
    verdict_rows = []
    extras = []
    bandwidth_checks: list[BW.BandwidthCheck] = []
    bandwidth_rows: list[dict] = []
    try:
        with Lab(workdir=str(out / "lab")) as lab:
            bench = Bench(lab, binary, out, duration, None if probe_fault else args.fault, args.codec)
            bench.start_servers()
            if chosen_bandwidth:
                bandwidth = BW.BandwidthBench(lab, binary, bench.url, bench.token, out, args.fault if probe_fault else None)
                bandwidth_checks, bandwidth_rows = bandwidth.run(chosen_bandwidth)
            for sc in chosen:
                print(f"# {sc.name}: {sc.title}", file=sys.stderr, flush=True)
                lab.impair(sc.up, sc.down, seed=args.seed, rate_kbit=sc.rate_kbit)
                lab.start_captures(f"{sc.name}-preflight")
                report = bench.run_preflight(sc.name)
                time.sleep(0.5)  # the last echoes in flight reach the capture
                flow_p = bench.flow_truth(lab.stop_captures(), T.is_audio_rtp)
                lab.start_captures(f"{sc.name}-irtt")
                irtt = bench.run_irtt(sc.name)
                time.sleep(0.5)
                flow_i = bench.flow_truth(lab.stop_captures(), T.is_irtt_probe(IRTT_LENGTH))
                shaper = lab.shaper_stats() if sc.rate_kbit else {}
                log = lab.clear_impairments()
                consistency = delayer_consistency(log, [flow_p, flow_i]) if log else "no log"
                tp, ti = truth_metrics(flow_p, report), truth_metrics(flow_i)
                p, i = preflight_metrics(report), irtt_metrics(irtt)
                checks += evaluate(sc, tp, p, ti, i, flow_p)
                verdict_rows.append((sc.name, verdicts(report)))
                extras.append({"scenario": sc.name, "packets": {"up": tp["n_up"], "down": tp["n_down"]},
                               "reordered": {"up": tp["reordered_up"], "down": tp["reordered_down"]},
                               "delayer": consistency, "shaper": shaper})
                print(f"  truth rtt {tp['rtt']:.2f} ms, preflight {p['rtt']:.2f}, irtt {i['rtt']:.2f}; "
                      f"loss up {tp['loss_up']:.2f}/{p['loss_up']:.2f}/{i['loss_up']:.2f} down {tp['loss_down']:.2f}/"
                      f"{p['loss_down']:.2f}/{i['loss_down']:.2f}; delayer log {consistency}", file=sys.stderr, flush=True)
    except LabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    if bandwidth_rows or bandwidth_checks:
        BW.print_tables(bandwidth_checks, bandwidth_rows)
        (out / "bandwidth.json").write_text(json.dumps({"checks": [dataclasses.asdict(c) for c in bandwidth_checks],
                                                         "rows": bandwidth_rows}, indent=1, default=str))
    bandwidth_failed = [c for c in bandwidth_checks if not c.ok]
    if not chosen:
        for c in bandwidth_failed:
            print(f"FAIL {c.scenario} {c.metric}: truth {BW.fmt(c.truth)}, Preflight {BW.fmt(c.preflight, 2)}, "
                  f"iperf3 {BW.fmt(c.iperf, 2)}; target {c.target}")
        print(f"\n{len(bandwidth_checks) - len(bandwidth_failed)}/{len(bandwidth_checks)} bandwidth checks met; artifacts in {out}")
        return 1 if bandwidth_failed else 0
    print(f"Accuracy: {len(chosen)} scenarios, {duration} s each for Preflight ({args.codec} 20 ms) and irtt "
          f"(-i {IRTT_INTERVAL} -l {IRTT_LENGTH}); ground truth from captures at both ends. Seed {args.seed}.\n")
    print_table(checks)
    print("\n| scenario | packets up/down | reordered up/down | delayer log vs captures | shaper |")
    print("|---|---|---|---|---|")
    for e in extras:
        print(f"| {e['scenario']} | {e['packets']['up']}/{e['packets']['down']} | {e['reordered']['up']}/{e['reordered']['down']} | "
              f"{e['delayer']} | {e['shaper'] or '-'} |")
    marks = [k for k in (2, 5, 10) if k < duration]
    print(f"\nTime to verdict: what a k-second test would have said (callQuality, mean MOS, warnings) against the whole "
          f"{duration} s run; a k agrees when its callQuality equals the whole run's (or both mean MOS sit within {EDGE_TIE} of the same band edge) and so do its warnings:\n")
    print("| scenario | " + " | ".join(f"{k} s" for k in marks) + f" | {duration} s |")
    print("|---|" + "---|" * (len(marks) + 1))

    def cell(v):
        if v is None:
            return "-"
        return f"{v['quality']} ({v['mos']:.2f}) {', '.join(v['warnings']) or 'no warnings'}"

    agree_quality = {k: True for k in marks}
    agree_all = {k: True for k in marks}
    for name, v in verdict_rows:
        whole = v["all"]
        for k in marks:
            mine = v.get(k)
            same_quality = mine is not None and whole is not None and (
                mine["quality"] == whole["quality"] or at_same_edge(mine["mos"], whole["mos"]))
            agree_quality[k] &= same_quality
            agree_all[k] &= same_quality and mine["warnings"] == whole["warnings"]
        print(f"| {name} | " + " | ".join(cell(v.get(k)) for k in marks) + f" | {cell(whole)} |")
    shortest_quality = next((k for k in marks if agree_quality[k]), duration)
    shortest = next((k for k in marks if agree_all[k]), duration)
    print(f"\nShortest duration whose callQuality agrees with the {duration} s run in every scenario: {shortest_quality} s; "
          f"whose callQuality and warnings agree: {shortest} s")
    failed = [c for c in checks if not c.ok]
    (out / "summary.json").write_text(json.dumps({"checks": [dataclasses.asdict(c) for c in checks],
                                                   "verdicts": verdict_rows, "extras": extras,
                                                   "shortest_agreeing_quality": shortest_quality,
                                                   "shortest_agreeing_verdict": shortest}, indent=1, default=str))
    for c in failed:
        print(f"FAIL {c.scenario} {c.metric}: truth {fmt(c.truth_p)}, Preflight {fmt(c.preflight)}, irtt {fmt(c.irtt)}; target {c.target}")
    for c in bandwidth_failed:
        print(f"FAIL {c.scenario} {c.metric}: truth {BW.fmt(c.truth)}, Preflight {BW.fmt(c.preflight, 2)}, "
              f"iperf3 {BW.fmt(c.iperf, 2)}; target {c.target}")
    print(f"\n{len(checks) - len(failed)}/{len(checks)} checks met, {len(bandwidth_checks) - len(bandwidth_failed)}/"
          f"{len(bandwidth_checks)} bandwidth checks met; artifacts in {out}")
    return 1 if failed or bandwidth_failed else 0


def delayer_consistency(log: Path, flows: list[T.FlowTruth]) -> str:
    """Checks the delayer's own log against the captures, packet by packet: a flow packet the
    captures saw lost must be one the delayer dropped, and one it dropped must be lost."""
    import csv
    dropped: set[str] = set()
    passed = 0
    with open(log) as f:
        for row in csv.DictReader(f):
            if row["action"] == "drop":
                dropped.add(row["hash"])
            else:
                passed += 1
    lost: set[str] = set()
    sent: set[str] = set()
    for flow in flows:
        for d in (flow.up, flow.down):
            sent.update(d.sent_keys)
            lost.update(k for k, ok in zip(d.sent_keys, d.received_flags) if not ok)
    flow_drops = dropped & sent
    agree = flow_drops == lost
    return (f"{'agrees' if agree else 'DISAGREES'}: {len(flow_drops)} dropped, {len(lost)} lost"
            + ("" if agree else f" ({len(lost - flow_drops)} lost but not dropped, {len(flow_drops - lost)} dropped but received)"))
