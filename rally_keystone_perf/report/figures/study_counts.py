"""A study's ratios by instruction count, beside their time ratios.

Where ``study`` counted the two configs a ratio compares
(:mod:`rally_keystone_perf.run.study_counts`: they differ only by what
stays inside Keystone's process), the ratio has a count too: the slower
config's instructions per request over the faster's, for the ratio's
action, the same way round as the time ratio, with a count's verdict
(:func:`.instructions.compare`: past the layouts' spread and 1%) and the
difference in SQL reads and writes per request. A ratio not counted keeps
its reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rally_keystone_perf.report.figures import verdicts
from rally_keystone_perf.report.figures.instructions import compare
from rally_keystone_perf.report.readers.instructions import (
    InstructionCounts,
    SideCount,
)
from rally_keystone_perf.studies.model import Ratio, Study


@dataclass(frozen=True)
class CountedRatio:
    """One ratio of a study by its counts (None: not counted)."""

    name: str  # the ratio's
    configs: tuple[str, str]  # the faster's label, the slower's
    faster: SideCount | None  # the faster config's count of the action
    slower: SideCount | None
    ratio: float | None  # instructions per request, slower over faster
    queries: float | None  # reads and writes per request, slower less faster
    verdict: verdicts.Verdict  # not measurable, with why, when not counted


@dataclass(frozen=True)
class StudyCounts:
    """What a study's page shows of the counts."""

    ratios: Sequence[CountedRatio]
    hash_rounds: int | None  # bcrypt's cost in the counts
    layouts: int  # memory layouts per workload

    def of(self, name: str) -> CountedRatio | None:
        """The ratio named ``name`` by its counts (None: none)."""
        return next((r for r in self.ratios if r.name == name), None)


def _pair(ratio: Ratio) -> tuple[str, str]:
    return ratio.faster, ratio.slower


def _count(counts: InstructionCounts, config: str, ratio: Ratio) -> SideCount | None:
    found = counts.sides.get(config, {}).values()
    return next((c for c in found if c.scenario == ratio.counted_scenario), None)


def _why(counts: InstructionCounts, ratio: Ratio) -> str:
    failed = [
        counts.failed[c] for c in (ratio.faster, ratio.slower) if c in counts.failed
    ]
    return f"count failed: {failed[0]}" if failed else "not counted"


def counted_ratio(counts: InstructionCounts, ratio: Ratio) -> CountedRatio:
    """``ratio`` by the counts of its two configs."""
    faster, slower = (
        _count(counts, ratio.faster, ratio),
        _count(counts, ratio.slower, ratio),
    )
    found = compare(faster, slower, _why(counts, ratio))
    return CountedRatio(
        ratio.name,
        _pair(ratio),
        faster,
        slower,
        found.ratio,
        found.queries,
        found.verdict,
    )


def study_counts(
    study: Study, counts: InstructionCounts | None, not_counted: Mapping[str, str]
) -> StudyCounts | None:
    """The study's ratios by their counts: each counted one's, and each
    other in ``not_counted`` (ratio name: why) with its reason; None when
    nothing was counted or left out."""
    if counts is None and not not_counted:
        return None
    rows = []
    for ratio in study.ratios:
        if ratio.name in not_counted:
            said = verdicts.not_measurable(f"not counted: {not_counted[ratio.name]}")
            rows.append(
                CountedRatio(ratio.name, _pair(ratio), None, None, None, None, said)
            )
        elif counts is not None and {ratio.faster, ratio.slower} <= (
            set(counts.sides) | set(counts.failed)
        ):
            rows.append(counted_ratio(counts, ratio))
    return StudyCounts(
        rows,
        None if counts is None else counts.conditions.get("password_hash_rounds"),
        0 if counts is None else int(counts.plan.get("layouts", 0)),
    )
