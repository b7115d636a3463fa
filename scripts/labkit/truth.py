"""Ground truth from the lab's captures: what the network did to every packet of a flow, per
direction (sent at one end's interface, received or not at the other's, with its one-way delay),
and the metrics a correct measurement must report for it."""

from __future__ import annotations

import dataclasses
import math
from typing import Callable, Iterable

from labkit.pcap import UDPDatagram

JITTER_GAIN = 1 / 16  # RFC 3550 A.8


@dataclasses.dataclass
class DirectionTruth:
    sent: int
    received: int
    duplicates: int
    reordered: int
    delays_ms: list[float]  # per received packet, in arrival order
    jitter_ms: list[float]  # RFC 3550 running jitter after each received packet, in arrival order
    send_times_ns: list[int]  # of every sent packet, in send order
    received_flags: list[bool]  # per sent packet
    sent_keys: list[str] = dataclasses.field(default_factory=list)  # payload hashes, in send order
    arrival_times_ns: list[int] = dataclasses.field(default_factory=list)  # of each received packet, in arrival order

    @property
    def lost(self) -> int:
        return self.sent - self.received

    @property
    def loss_percent(self) -> float:
        return 100.0 * self.lost / self.sent if self.sent else 0.0

    @property
    def mean_delay_ms(self) -> float:
        return sum(self.delays_ms) / len(self.delays_ms) if self.delays_ms else math.nan

    @property
    def mean_jitter_ms(self) -> float:
        return sum(self.jitter_ms) / len(self.jitter_ms) if self.jitter_ms else math.nan

    def jitter_at(self, times_ns: list[int]) -> list[float]:
        """The running jitter as it stood at each instant: what a meter that reads J at those
        instants (the SDK's one-second samples) must report."""
        import bisect
        out = []
        for t in times_ns:
            i = bisect.bisect_right(self.arrival_times_ns, t)
            if i > 0:
                out.append(self.jitter_ms[i - 1])
        return out


    def latest_sent_before(self, times_ns: list[int]) -> list[int]:
        """For each instant, the latest send time among the packets that had arrived by then:
        the edge instant of the newest echo a receiver holds (the SDK keeps the echo that expects
        the most packets, i.e. the newest, when echoes arrive out of order)."""
        import bisect
        import itertools
        sends = [a - int(d * 1e6) for a, d in zip(self.arrival_times_ns, self.delays_ms)]
        newest = list(itertools.accumulate(sends, max))
        out = []
        for t in times_ns:
            i = bisect.bisect_right(self.arrival_times_ns, t)
            if i > 0:
                out.append(newest[i - 1])
        return out


def rfc3550_jitter(transits_ms: Iterable[float]) -> list[float]:
    """The running interarrival jitter J after each packet, from transit times in arrival order."""
    out: list[float] = []
    j = 0.0
    previous = None
    for transit in transits_ms:
        if previous is not None:
            j += (abs(transit - previous) - j) * JITTER_GAIN
        previous = transit
        out.append(j)
    return out


def direction_truth(tx: list[UDPDatagram], rx: list[UDPDatagram]) -> DirectionTruth:
    """Matches the packets captured as sent with those captured as received by payload."""
    sent_at: dict[str, int] = {}
    order: dict[str, int] = {}
    for i, d in enumerate(tx):
        sent_at.setdefault(d.key, d.time_ns)
        order.setdefault(d.key, i)
    seen: set[str] = set()
    duplicates = 0
    reordered = 0
    highest = -1
    transits: list[float] = []
    arrivals: list[int] = []
    for d in sorted(rx, key=lambda d: d.time_ns):
        t = sent_at.get(d.key)
        if t is None:
            continue  # not part of this flow's sent packets (e.g. captured before the sender's capture began)
        if d.key in seen:
            duplicates += 1
            continue
        seen.add(d.key)
        if order[d.key] < highest:
            reordered += 1
        highest = max(highest, order[d.key])
        transits.append((d.time_ns - t) / 1e6)
        arrivals.append(d.time_ns)
    flags = [d.key in seen for d in tx]
    return DirectionTruth(sent=len(sent_at), received=len(seen), duplicates=duplicates, reordered=reordered,
                          delays_ms=transits, jitter_ms=rfc3550_jitter(transits),
                          send_times_ns=[d.time_ns for d in tx], received_flags=flags,
                          sent_keys=[d.key for d in tx], arrival_times_ns=arrivals)


def select(datagrams: list[UDPDatagram], src: str, dst: str, accept: Callable[[UDPDatagram], bool]) -> list[UDPDatagram]:
    return [d for d in datagrams if d.src == src and d.dst == dst and accept(d)]


AUDIO_PAYLOAD_TYPES = (0, 111)  # PCMU, opus (docs/protocol.md, Codecs)


def is_audio_rtp(d: UDPDatagram) -> bool:
    """RTP version 2 carrying PCMU (0) or Opus (111): the test call's media, not STUN or RTCP."""
    p = d.payload
    return len(p) >= 12 and p[0] >> 6 == 2 and p[1] & 0x7F in AUDIO_PAYLOAD_TYPES


def is_irtt_probe(length: int) -> Callable[[UDPDatagram], bool]:
    """irtt's test packets (not its open/close handshake): its magic and the configured length."""
    return lambda d: len(d.payload) == length and d.payload[:3] == b"\x14\xa7\x5b"


@dataclasses.dataclass
class FlowTruth:
    up: DirectionTruth
    down: DirectionTruth

    @property
    def rtt_ms(self) -> float:
        return self.up.mean_delay_ms + self.down.mean_delay_ms

    @property
    def round_trip_loss_percent(self) -> float:
        return 100 * (1 - (1 - self.up.loss_percent / 100) * (1 - self.down.loss_percent / 100))

    def per_second(self, lag_ns: int = 0) -> list[dict]:
        """Per second of the client's sending (from its first packet): the round trip's rtt, jitter
        (worse direction, RFC 3550 J at the second's end) and round-trip loss, for the warning rules.
        With `lag_ns`, each packet counts in the second in which the client can first know its fate
        (its send time plus the lag) rather than the one in which it was sent."""
        if not self.up.send_times_ns:
            return []
        t0 = self.up.send_times_ns[0]
        seconds: list[dict] = []

        def bins(direction: DirectionTruth) -> dict[int, list[bool]]:
            out: dict[int, list[bool]] = {}
            for t, ok in zip(direction.send_times_ns, direction.received_flags):
                out.setdefault(int((t + lag_ns - t0) // 1_000_000_000), []).append(ok)
            return out

        up_bins, down_bins = bins(self.up), bins(self.down)
        n = max(up_bins) + 1 if up_bins else 0
        for k in range(n):
            def loss(b):
                flags = b.get(k, [])
                return (flags.count(False) / len(flags)) if flags else 0.0
            # Delays and jitter of a direction change slowly: the whole-run values stand for each second.
            lost = 100 * (1 - (1 - loss(up_bins)) * (1 - loss(down_bins)))
            seconds.append({"rtt": self.rtt_ms, "jitter": max(self.up.mean_jitter_ms, self.down.mean_jitter_ms), "loss": lost})
        return seconds


def mos(rtt: float, jitter: float, loss_percent: float) -> float:
    """The SDK's MeanOpinionScore (docs/measurement.md), for the expected warnings."""
    effective = rtt + 2 * jitter + 10
    r0 = 94.768
    if effective < 160:
        r = r0 - effective / 40
    elif effective < 1000:
        r = r0 - (effective - 120) / 10
    else:
        r = 0
    loss = min(100, max(0, loss_percent))
    r = max(r - 2.5 * loss, 6.52) if loss <= r / 2.5 else 0
    if r <= 0:
        return 1
    if r >= 100:
        return 4.5
    return 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7.0e-6


def call_quality(average_mos: float) -> str:
    if average_mos > 4.2:
        return "excellent"
    if average_mos >= 4.1:
        return "great"
    if average_mos >= 3.7:
        return "good"
    if average_mos >= 3.1:
        return "fair"
    return "degraded"


def warnings_raised(seconds: list[dict], rtt_scale: float = 1.0, jitter_scale: float = 1.0,
                    loss_shift: float = 0.0, mos_shift: float = 0.0) -> set[str]:
    """The quality warnings the SDK's rules (WarningsEngine) raise for a series of seconds; the
    scale/shift arguments move every value, to ask whether a small measurement error could flip one."""
    raised: set[str] = set()
    rtts, jitters, moses, losses = [], [], [], []
    for s in seconds:
        rtt, jitter, loss = s["rtt"] * rtt_scale, s["jitter"] * jitter_scale, max(0.0, s["loss"] + loss_shift)
        rtts = (rtts + [rtt])[-5:]
        jitters = (jitters + [jitter])[-5:]
        moses = (moses + [mos(rtt, jitter, loss) + mos_shift])[-5:]
        losses = (losses + [loss])[-7:]
        if sum(v > 400 for v in rtts) >= 3:
            raised.add("high-rtt")
        if sum(v > 30 for v in jitters) >= 3:
            raised.add("high-jitter")
        if sum(v < 3.5 for v in moses) >= 3:
            raised.add("low-mos")
        if len(losses) == 7 and sum(losses) / 7 > 3:
            raised.add("high-packets-lost-fraction")
    return raised


def expected_warnings(flow: FlowTruth) -> tuple[set[str], set[str]]:
    """(must appear, may appear): those the ground truth raises even with the measurement's
    tolerated error against it, and those it raises with some tolerated error.

    A once-a-second sampler learns of a lost packet only when a later one comes back: up to a round
    trip after it was sent (the edge's view of the uplink rides on the echoes). So the truth's
    seconds are taken twice, by send time and by send time plus the RTT: a warning must appear when
    both raise it, and may appear when either does. With bursty loss and a long RTT the two differ
    (a burst at a second's end lands in the next sample)."""
    by_send = flow.per_second()
    by_knowledge = by_send if math.isnan(flow.rtt_ms) else flow.per_second(lag_ns=int(flow.rtt_ms * 1e6))

    def raised(seconds: list[dict], favourable: bool) -> set[str]:
        if favourable:
            return warnings_raised(seconds, rtt_scale=0.97, jitter_scale=0.9, loss_shift=-0.5, mos_shift=+0.1)
        return warnings_raised(seconds, rtt_scale=1.03, jitter_scale=1.1, loss_shift=+0.5, mos_shift=-0.1)

    must = raised(by_send, True) & raised(by_knowledge, True)
    may = raised(by_send, False) | raised(by_knowledge, False)
    return must, may
