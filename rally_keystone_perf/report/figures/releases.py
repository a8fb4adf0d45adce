"""Keystone releases measured in rounds: each one's figures, each pair's ratio.

A release's row for an action (``keystone.create_token``...) is the mean of
its rounds (:func:`rally_keystone_perf.report.figures.study_rounds.combined`).
A pair of releases next to each other (28.0.0 after 27.0.0) has, per action,
the ratio of the newer's median to the older's taken within each round, and
over the rounds its geometric mean with the 95% t-interval (the A/B's,
:func:`rally_keystone_perf.report.figures.verdicts.estimate`) and the drift of one
release's median between rounds beside it. The verdict is the A/B's
(:func:`rally_keystone_perf.report.figures.verdicts.judge`): ``slower`` or
``faster`` only when the whole interval says so, and not measurable when it
reaches 25% past no change.

When the releases were counted (``instructions.json``,
:mod:`rally_keystone_perf.report.readers.instructions`, a side per release),
each release's instructions and SQL statements per request per action, and
each pair's ratio of instructions judged with the layouts' spread as its
margin (:func:`.verdicts.counted`): a count does not drift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rally_keystone_perf.report.figures import verdicts
from rally_keystone_perf.report.figures.instructions import compare
from rally_keystone_perf.report.figures.study import Key, Measured
from rally_keystone_perf.report.figures.study_rounds import Rounds, round_ratio
from rally_keystone_perf.report.readers.instructions import (
    InstructionCounts,
    SideCount,
)
from rally_keystone_perf.studies.model import Ratio

if TYPE_CHECKING:  # pragma: no cover (a type only: report/ runs nothing of run/)
    from rally_keystone_perf.run.releases import Failure

ACTIONS = ("keystone.create_token", "keystone.validate_token", "keystone.list_projects")
FIGURE = "median"


@dataclass(frozen=True)
class ReleaseRow:
    """A release's figures for one action (None: not measured)."""

    release: str
    action: str
    ours: Measured | None


@dataclass(frozen=True)
class PairRow:
    """The newer release's median over the older's, for one action."""

    older: str
    newer: str
    action: str
    ratio: float | None  # 1.10: the newer takes 10% longer
    low: float | None
    high: float | None
    drift: float | None
    rounds: int
    verdict: verdicts.Verdict


# the scenario whose count is an action's: KeystonePerf.create_token's
SCENARIOS = {action: f"KeystonePerf.{action.split('.')[1]}" for action in ACTIONS}


@dataclass(frozen=True)
class CountRow:
    """A release's count of one action (None: not counted)."""

    release: str
    action: str
    found: SideCount | None


@dataclass(frozen=True)
class CountPair:
    """The newer release's count over the older's, for one action."""

    older: str
    newer: str
    action: str
    ratio: float | None  # instructions per request, newer over older
    queries: float | None  # reads and writes per request, newer less older
    verdict: verdicts.Verdict


@dataclass(frozen=True)
class ReleaseCounts:
    """What the page shows of the counts."""

    rows: Sequence[CountRow]
    pairs: Sequence[CountPair]
    failed: Mapping[str, str]  # a release not counted: why
    layouts: int  # memory layouts per workload
    hash_rounds: int | None  # bcrypt's cost in the counts


@dataclass(frozen=True)
class ReleasesPage:
    """What the page shows."""

    title: str
    releases: Sequence[str]
    rows: Sequence[ReleaseRow]
    pairs: Sequence[PairRow]
    failures: Sequence[Failure] = ()
    notes: Sequence[str] = field(default_factory=tuple)  # how it was measured
    counts: ReleaseCounts | None = None  # None: not counted


def level_of(per_round: Rounds) -> int | None:
    """The concurrency the rounds ran at (the task's one level)."""
    levels = {key[1] for found in per_round for key in found}
    return min(levels) if levels else None


def release_rows(
    releases: Sequence[str], ours: Mapping[Key, Measured], level: int | None
) -> list[ReleaseRow]:
    """Every release's row for every action, action by action."""
    return [
        ReleaseRow(release, action, ours.get((release, level or 0, action)))
        for action in ACTIONS
        for release in releases
    ]


def pair_rows(releases: Sequence[str], per_round: Rounds) -> list[PairRow]:
    """Each release against the one before it, action by action."""
    level = level_of(per_round) or 0
    rows = []
    for action in ACTIONS:
        for older, newer in zip(releases, releases[1:], strict=False):
            # the "faster" is the older: the gain is then newer / older
            ratio = Ratio(
                f"{newer} vs {older}", older, newer, action=action, figure=FIGURE
            )
            found = round_ratio(ratio, level, per_round)
            if found is None:
                said = verdicts.not_measurable("not measured")
                rows.append(
                    PairRow(older, newer, action, None, None, None, None, 0, said)
                )
                continue
            estimate = found.found
            if found.failing:
                said = verdicts.not_measurable(found.failing, estimate)
            else:
                said = verdicts.judge(estimate)
            rows.append(
                PairRow(
                    older,
                    newer,
                    action,
                    estimate.ratio,
                    estimate.low,
                    estimate.high,
                    found.drift,
                    estimate.rounds,
                    said,
                )
            )
    return rows


def _action_count(
    counts: InstructionCounts, release: str, action: str
) -> SideCount | None:
    found = counts.sides.get(release, {})
    return next((c for c in found.values() if c.scenario == SCENARIOS[action]), None)


def _pair(older: str, newer: str, action: str, counts: InstructionCounts) -> CountPair:
    a, b = (_action_count(counts, r, action) for r in (older, newer))
    found = compare(a, b, "not counted")
    return CountPair(older, newer, action, found.ratio, found.queries, found.verdict)


def release_counts(
    releases: Sequence[str], counts: InstructionCounts | None
) -> ReleaseCounts | None:
    """Every release's count per action, and each release against the one
    before it; None when the releases were not counted."""
    if counts is None:
        return None
    rows = [
        CountRow(release, action, _action_count(counts, release, action))
        for action in ACTIONS
        for release in releases
    ]
    pairs = [
        _pair(older, newer, action, counts)
        for action in ACTIONS
        for older, newer in zip(releases, releases[1:], strict=False)
    ]
    return ReleaseCounts(
        rows,
        pairs,
        counts.failed,
        int(counts.plan.get("layouts", 0)),
        counts.conditions.get("password_hash_rounds"),
    )
