"""The pure parts of `lab path` (scripts/labkit/path.py): the scenarios, the truth of a run from
the delayer's log, mtr's naive reading, one run's row and the table and targets of all of them.
Tested by scripts/labkit/tests/test_path.py without a lab."""

from __future__ import annotations

import dataclasses

EDGE_IP = "198.18.43.2"
HOP_ADDRESSES = {1: "198.18.40.1", 2: "198.18.41.1", 3: "198.18.42.2", 4: EDGE_IP}
MEDIA_MIN_UDP_LENGTH = 150  # the test's RTP (172 bytes of PCMU and its header extension); probes are 20, RTCP under 100
# link → the segment it is in (the link into hop k is hop k's)
LINK_SEGMENTS = {1: "local-network", 2: "access-network", 3: "access-network", 4: "path-to-edge"}


@dataclasses.dataclass
class Scenario:
    name: str
    link: int | None = None  # the impaired link
    spec: dict = dataclasses.field(default_factory=dict)  # DirectionSpec fields, both ways
    rate_limited: str | None = None  # a router whose ICMP errors are rate-limited
    silent: str | None = None  # a router that sends no time-exceeded

    @property
    def truth_segment(self) -> str | None:
        if self.link is None:
            return None
        return LINK_SEGMENTS[self.link]

    @property
    def problem(self) -> str | None:
        if self.link is None:
            return None
        return "loss" if self.spec.get("loss", 0) > 0 else "jitter"



# -- the pure parts (scripts/labkit/tests/test_path.py) -----------------------------------------

def truth_from_log(text: str) -> dict:
    """The test's media packets (UDP payloads of at least 150 bytes) the delayer passed and dropped each way."""
    counts = {"up": [0, 0], "down": [0, 0]}
    for line in text.splitlines()[1:]:
        parts = line.split(",")
        if len(parts) < 6 or not parts[4].isdigit() or int(parts[4]) < MEDIA_MIN_UDP_LENGTH or parts[0] not in counts:
            continue
        counts[parts[0]][0 if parts[3] == "pass" else 1] += 1
    loss = {d: (dropped / (passed + dropped) if passed + dropped else 0.0) for d, (passed, dropped) in counts.items()}
    return {"up_loss": loss["up"], "down_loss": loss["down"], "packets": {d: sum(c) for d, c in counts.items()}}


def mtr_worst(report: dict) -> dict | None:
    """mtr's naive reading: the hop with the highest loss (the first of equals), with its segment."""
    hubs = (report.get("report") or {}).get("hubs") or []
    best = None
    for index, hub in enumerate(hubs, start=1):
        loss = float(hub.get("Loss%", 0))
        if best is None or loss > best["loss"]:
            best = {"hop": index, "host": hub.get("host"), "loss": loss}
    if best is not None:
        best["segment"] = segment_of_hop(best["hop"])
    return best


def segment_of_hop(hop: int) -> str:
    return {1: "local-network", 2: "access-network", 3: "access-network"}.get(hop, "path-to-edge")


def judge(scenario: Scenario, report: dict, truth: dict | None, mtr: dict | None) -> dict:
    """One run's row: what the lab did, what the diagnosis said, and mtr's naive reading."""
    path = report.get("pathDiagnosis") or {}
    blames = path.get("blames") or []
    suspects = path.get("suspects") or []
    problem = scenario.problem
    ours = next((b for b in blames if b.get("problem") == problem), None) if problem else None
    likeliest = ours or (next((s for s in suspects if s.get("problem") == problem), None) if problem else None)
    wrong = [b for b in blames if not (problem and b.get("problem") == problem and b.get("segment") == scenario.truth_segment)]
    row = {
        "scenario": scenario.name, "truth": scenario.truth_segment or "none", "problem": problem,
        "rate_limited": scenario.rate_limited,
        "blamed": [f"{b['problem']}@{b['segment']}" for b in blames],
        "suspects": [f"{s['problem']}@{s['segment']} {s['confidence']:.2f}" for s in suspects],
        "correct": bool(ours and ours.get("segment") == scenario.truth_segment) if problem else not blames,
        "named": bool(likeliest and likeliest.get("segment") == scenario.truth_segment) if problem else not blames,
        "stated": likeliest.get("confidence") if likeliest else None,
        "false_blames": len(wrong),
        "probes": path.get("probesSent", 0), "test_packets": path.get("testPackets", 0),
        "share": (path.get("probesSent", 0) / path["testPackets"] * 100) if path.get("testPackets") else None,
        "notes": {h["ttl"]: h["note"] for h in path.get("hops", []) if h.get("note")},
        "hops": [(h["ttl"], h.get("address"), h.get("lossPercent"), h.get("jitter")) for h in path.get("hops", [])],
        "summary": path.get("summary", ""),
        "error": path.get("error"),
    }
    if truth is not None and problem == "loss":
        worse_truth = max(truth["up_loss"], truth["down_loss"]) * 100
        row["truth_loss"] = worse_truth
        value = ours["value"] if ours else next((s["value"] for s in suspects if s.get("problem") == "loss"), None)
        row["measured_loss"] = value
        row["loss_error_pp"] = abs(value - worse_truth) if value is not None else None
    if mtr is not None:
        row["mtr_worst"] = mtr
        row["mtr_blames_rate_limiter"] = bool(scenario.rate_limited and mtr["loss"] > 0 and mtr["host"] == HOP_ADDRESSES[2])
    return row



def table(rows: list[dict]) -> str:
    """The scenario × seed table: truth, our verdict, mtr's worst hop."""
    lines = ["| scenario | seed | truth | ours: blamed | ours: suspects | loss truth / ours (pp) | probes (share) | mtr's worst hop |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        loss = ""
        if r.get("truth_loss") is not None:
            measured = r.get("measured_loss")
            loss = f"{r['truth_loss']:.1f} / {measured:.1f}" if measured is not None else f"{r['truth_loss']:.1f} / -"
        share = f"{r['probes']} ({r['share']:.1f} %)" if r.get("share") is not None else str(r.get("probes"))
        mtr = r.get("mtr_worst")
        mtr_text = f"hop {mtr['hop']} {mtr['host']} {mtr['loss']:.0f} % ({mtr['segment']})" if mtr else "-"
        truth = f"{r['problem']}@{r['truth']}" if r.get("problem") else "none"
        lines.append(f"| {r['scenario']} | {r['seed']} | {truth} | {', '.join(r['blamed']) or '-'} | "
                     f"{', '.join(r['suspects']) or '-'} | {loss} | {share} | {mtr_text} |")
    return "\n".join(lines)


def targets(rows: list[dict]) -> tuple[bool, list[str]]:
    """The issue's targets over all rows; whether all are met, and one line each."""
    impaired = [r for r in rows if r.get("problem")]
    named = sum(1 for r in impaired if r["named"])
    blamed = sum(1 for r in impaired if r["correct"])
    false_blames = sum(r["false_blames"] for r in rows)
    loss_rows = [r for r in rows if r.get("loss_error_pp") is not None]
    within = sum(1 for r in loss_rows if r["loss_error_pp"] <= 1.0)
    shares = [r["share"] for r in rows if r.get("share") is not None]
    limited = [r for r in rows if r.get("rate_limited")]
    mtr_limited = sum(1 for r in limited if r.get("mtr_blames_rate_limiter"))
    mtr_right = sum(1 for r in impaired if r.get("mtr_worst") and r["mtr_worst"]["segment"] == r["truth"] and r["mtr_worst"]["loss"] > 0)
    failed = [r for r in rows if r.get("test_exit") not in (0, None) or r.get("error")]
    named_share = named / len(impaired) * 100 if impaired else 100.0
    checks = [
        (f"impaired segment named in {named} of {len(impaired)} runs ({named_share:.0f} %; blamed with 95 % confidence in {blamed})",
         named_share >= 95),
        (f"false blames: {false_blames} (clean, rate-limited and silent routers included)", false_blames == 0),
        (f"loss within 1 pp of the truth in {within} of {len(loss_rows)} loss runs", within == len(loss_rows)),
        (f"probes at most {max(shares):.1f} % of the test's packets" if shares else "no probe share", bool(shares) and max(shares) <= 5.0),
        (f"tests that failed or could not probe: {len(failed)}", not failed),
    ]
    lines = [f"  {'ok  ' if ok else 'MISS'} {text}" for text, ok in checks]
    lines += calibration(impaired)
    lines.append(f"  mtr's naive reading (the hop with the most loss) blames the rate-limiting hop in {mtr_limited} of {len(limited)} "
                 f"rate-limited runs, and names the impaired segment in {mtr_right} of {len(impaired)} impaired runs")
    return all(ok for _, ok in checks), lines


CALIBRATION_BINS = ((0.0, 0.6), (0.6, 0.8), (0.8, 0.95), (0.95, 1.01))


def calibration(impaired: list[dict]) -> list[str]:
    """Whether the stated probabilities mean what they say: for the runs whose likeliest segment
    was stated with a probability in each bin, how often it was the right one."""
    parts = []
    for low, high in CALIBRATION_BINS:
        runs = [r for r in impaired if r.get("stated") is not None and low <= r["stated"] < high]
        if runs:
            stated = sum(r["stated"] for r in runs) / len(runs) * 100
            right = sum(1 for r in runs if r["named"])
            parts.append(f"{low * 100:.0f}–{min(high, 1.0) * 100:.0f} %: {right} of {len(runs)} right (stated {stated:.0f} % on average)")
    return [f"  calibration of the likeliest segment's stated probability: {'; '.join(parts)}"] if parts else []
