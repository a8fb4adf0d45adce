"""A capacity step's verdict: what the report's judge hands the search.

The report judges a step's report into a :class:`Step`
(:mod:`rally_keystone_perf.report.figures.capacity_step`); the search
(:mod:`rally_keystone_perf.run.capacity_search`) decides its next rate from
it. A step is sustained when it met the SLO at
the offered rate, less :data:`SHORTFALL` and one answer's worth of rate
(:attr:`Step.resolution`), and the generator kept its schedule.
"""

from __future__ import annotations

from dataclasses import dataclass

SHORTFALL = 0.05  # achieved below offered by more than this: not sustained


@dataclass(frozen=True)
class Step:
    """One step's judgement (rates in iterations a second)."""

    offered: float
    achieved: float
    misses: tuple[str, ...] = ()  # the SLO's clauses missed (empty: met)
    generator_limited: bool = False
    server_busy: bool = False  # a server tier's CPU was busy (unknown: False)
    # one answer's worth of rate: the achieved rate is a count of answers in
    # a window, and a steady stream's count in a window is its rate times
    # the window give or take one (an answer just before or just after an
    # edge); a shortfall within it is the count's grain, not a server
    # falling behind (5/s judged over 3 s: 14 answers instead of 15 is 7%)
    resolution: float = 0.0

    @property
    def kept_up(self) -> bool:
        """The server met the SLO at (nearly) the offered rate."""
        needed = (1 - SHORTFALL) * self.offered - self.resolution
        return not self.misses and self.achieved >= needed

    @property
    def sustained(self) -> bool:
        """Kept up, and the generator kept its schedule: a rate met."""
        return self.kept_up and not self.generator_limited

    @property
    def generator_bound(self) -> bool:
        """The generator fell behind while the server kept up with CPU to
        spare: the step measured the generator. (Behind a server that did
        not keep up, or whose CPU was busy, the lag is the machine's CPU
        taken by the server, and the step is missed.)"""
        return self.generator_limited and self.kept_up and not self.server_busy
