"""A study's capacity rows: per config, the highest rate it sustains.

Each config's capacity search (``study --capacity``) leaves a curve
(:mod:`.capacity_curve`); its row here holds the sustained rate and the
lowest rate found not sustained (the true limit lies between), the knee,
the bottleneck at the sustained rate, the steps taken and the machine's
speed probe over them, beside the seed's rate where it gave one (seed 001's
tokens a second per node count).

A ratio of two configs' capacities has no interval from repeated rounds:
its range comes from the two brackets, from the faster's low end over the
slower's high end to the faster's high end over the slower's low end. Its
verdict is :func:`.study_rounds.range_verdict`'s: ``undecided`` when that
range allows more than one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rally_keystone_perf.report.figures.capacity_curve import Curve
from rally_keystone_perf.report.figures.study import RatioRow
from rally_keystone_perf.report.figures.study_rounds import range_verdict
from rally_keystone_perf.studies.model import Study


@dataclass(frozen=True)
class CapacityRow:
    """One config's capacity (rates a second)."""

    config: str
    seed_rate: float | None  # the seed's, where it gave one
    sustained: float | None  # None: no rate tried met the SLO
    above: float | None  # the lowest rate missed; None: none was
    knee: float | None
    bottleneck: str | None  # at the sustained rate (else at the knee)
    steps: int
    probes: tuple[float, float] | None  # the speed probe's lowest, highest (s)
    stopped: str  # why its search ended


def capacity_row(config: str, curve: Curve, seed_rate: float | None) -> CapacityRow:
    """``config``'s row from its search's curve."""
    knee = curve.knee
    at = curve.row_at(curve.sustained) or curve.row_at(knee)
    probes = [r.probe for r in curve.rows if r.probe is not None]
    return CapacityRow(
        config,
        seed_rate,
        curve.sustained,
        curve.above,
        knee,
        None if at is None else at.bottleneck,
        len(curve.rows),
        (min(probes), max(probes)) if probes else None,
        curve.stopped,
    )


def capacity_rows(plan: Study, curves: Mapping[str, Curve]) -> list[CapacityRow]:
    """A row per config searched, in the study's order."""
    seed = plan.capacity.seed_rates if plan.capacity else {}
    return [
        capacity_row(c.label, curves[c.label], seed.get(c.label))
        for c in plan.configs
        if c.label in curves
    ]


def capacity_ratios(plan: Study, rows: Sequence[CapacityRow]) -> list[RatioRow]:
    """The study's ratios between configs with capacities, each with the
    range their brackets allow (level 0: a capacity has none)."""
    by_config = {row.config: row for row in rows}
    found = []
    seen = set()
    for ratio in plan.ratios:
        pair = (ratio.faster, ratio.slower)
        faster, slower = by_config.get(ratio.faster), by_config.get(ratio.slower)
        if faster is None or slower is None or pair in seen:
            continue
        seen.add(pair)
        found.append(_ratio_row(ratio.name, faster, slower, ratio.seed_words))
    return found


def _ratio_row(
    name: str, faster: CapacityRow, slower: CapacityRow, words: str
) -> RatioRow:
    seed = None
    if faster.seed_rate and slower.seed_rate:
        seed = faster.seed_rate / slower.seed_rate
    if faster.sustained is None or slower.sustained is None:
        return RatioRow(name, 0, seed, words, None, "not measured: no rate met")
    ours = faster.sustained / slower.sustained
    ends = (
        faster.sustained / (slower.above or slower.sustained),
        (faster.above or faster.sustained) / slower.sustained,
    )
    verdict = range_verdict(seed, ours, ends, words, "bracket")
    return RatioRow(name, 0, seed, words, ours, verdict, min(ends), max(ends))


@dataclass(frozen=True)
class CapacityPart:
    """The capacity part of a study's page."""

    slo: str  # the objective's text
    unit: str  # what a rate counts: project lists
    rows: list[CapacityRow]
    ratios: list[RatioRow]
    measured_in: str  # how: steps in turns, or one config after the other
