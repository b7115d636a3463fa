"""Impairment models, pure and seeded, shared by the NFQUEUE delayer (and mirrored by the Swift
userspace relay in PreflightTesting): per-packet delay with jitter (optionally FIFO so that
jitter never reorders), random loss and Gilbert–Elliott bursty loss."""

from __future__ import annotations

import dataclasses
import random


@dataclasses.dataclass
class DirectionSpec:
    """What one direction does to its packets. Times in ms, probabilities in 0…1."""

    delay: float = 0.0
    jitter: float = 0.0  # uniform in [delay - jitter, delay + jitter], clipped at 0 (netem's default)
    fifo: bool = True  # a packet never leaves before the one queued ahead of it
    loss: float = 0.0  # independent random loss
    # Gilbert–Elliott: p = P(good→bad), r = P(bad→good), 1-k = loss in good, 1-h = loss in bad.
    ge_p: float = 0.0
    ge_r: float = 1.0
    ge_h: float = 0.0
    ge_k: float = 1.0

    @staticmethod
    def bursty(mean_loss: float, mean_burst: float) -> "DirectionSpec":
        """A Gilbert–Elliott channel (h = 0, k = 1: every packet in the bad state is lost) with
        the given long-run loss and mean burst length in packets."""
        r = 1.0 / mean_burst
        p = mean_loss * r / (1.0 - mean_loss)
        return DirectionSpec(ge_p=p, ge_r=r)

    @property
    def uses_gilbert_elliott(self) -> bool:
        return self.ge_p > 0

    def expected_loss(self) -> float:
        """The long-run loss this spec is configured for (the log says what it really did)."""
        ge = 0.0
        if self.uses_gilbert_elliott:
            bad = self.ge_p / (self.ge_p + self.ge_r)
            ge = bad * (1 - self.ge_h) + (1 - bad) * (1 - self.ge_k)
        return 1 - (1 - self.loss) * (1 - ge)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @staticmethod
    def from_dict(d: dict) -> "DirectionSpec":
        names = {f.name for f in dataclasses.fields(DirectionSpec)}
        unknown = set(d) - names
        if unknown:
            raise ValueError(f"unknown impairment fields: {sorted(unknown)}")
        return DirectionSpec(**d)


class DirectionModel:
    """Decides, packet by packet, what happens: drop, or the release time."""

    def __init__(self, spec: DirectionSpec, seed: int):
        self.spec = spec
        self.rng = random.Random(seed)
        self.bad = False
        self.last_release = 0.0

    def decide(self, arrival: float) -> float | None:
        """Returns the release time (s) of a packet that arrived at `arrival` (s), or None to drop."""
        s = self.spec
        lost = False
        if s.uses_gilbert_elliott:
            # Transition first, then lose with the state's probability.
            if self.bad:
                if self.rng.random() < s.ge_r:
                    self.bad = False
            elif self.rng.random() < s.ge_p:
                self.bad = True
            keep = s.ge_h if self.bad else s.ge_k
            if self.rng.random() >= keep:
                lost = True
        if s.loss > 0 and self.rng.random() < s.loss:
            lost = True
        if lost:
            return None
        delay = s.delay
        if s.jitter > 0:
            delay += self.rng.uniform(-s.jitter, s.jitter)
        release = arrival + max(0.0, delay) / 1000.0
        if s.fifo and release < self.last_release:
            release = self.last_release
        self.last_release = release
        return release
