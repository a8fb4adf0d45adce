"""A bisect's page in numbers: every step counted, the culprit, the changes.

Each counted step's instructions and queries per request, by workload,
and its ratio to good's; the culprit (the first step past the threshold
while the step before it is not) against that step, by
:func:`.instructions.compare`, with its files and the Python functions
whose calls and own lines changed most (:func:`top_changes`, from the
profiles of both); the skipped steps it may
hide among; and every change the counted steps show, more than one when
a cost went up then down (:func:`rally_keystone_perf.run.bisect_search.changes`
found them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rally_keystone_perf.layout.bisect import (
    AMONG_SKIPPED,
    ENDS_FAILED,
    FOUND,
    NOTHING,
    QUERIES,
    UNFINISHED,
)
from rally_keystone_perf.report.figures.instructions import (
    CountChange,
    compare,
    queries,
)
from rally_keystone_perf.report.readers.bisect import BisectRecord, Profile, Step

TOP_FUNCTIONS = 12  # the functions shown whose cost changed most


@dataclass(frozen=True)
class StepRow:
    """One counted step's figures for one workload."""

    step: Step
    workload: str
    instructions: float | None
    queries: float | None
    ratio: float | None  # instructions over good's
    role: str  # good, bad, culprit, counted, skipped
    more_queries: float | None = None  # queries per request less good's


@dataclass(frozen=True)
class FunctionChange:
    """One Python function's calls and own lines per iteration, before the
    culprit and at it."""

    name: str  # file below site-packages: qualified name
    calls: tuple[float, float]
    lines: tuple[float, float]

    @property
    def more_lines(self) -> float:
        return self.lines[1] - self.lines[0]

    @property
    def more_calls(self) -> float:
        return self.calls[1] - self.calls[0]


@dataclass(frozen=True)
class Culprit:
    """The step that made the cost move, against the step before it."""

    step: Step
    before: Step
    changes: Sequence[tuple[str, CountChange]]  # by workload
    functions: Mapping[str, Sequence[FunctionChange]]  # by workload
    not_profiled: str | None = None  # why there are no functions
    libraries: Sequence[tuple[str, str | None, str | None]] = ()  # changed


def library_changes(
    before: Step, after: Step
) -> list[tuple[str, str | None, str | None]]:
    """Each distribution whose version differs between two steps' builds:
    name, version before (None: absent), version after; [] when either
    build's versions are unknown."""
    if not before.libraries or not after.libraries:
        return []
    old, new = before.libraries, after.libraries
    return [
        (name, old.get(name), new.get(name))
        for name in sorted(set(old) | set(new), key=str.lower)
        if old.get(name) != new.get(name)
    ]


@dataclass(frozen=True)
class BisectPage:
    """What the bisect's page shows."""

    record: BisectRecord
    status: str
    said: str  # the conclusion in one sentence
    rows: Sequence[StepRow]
    culprit: Culprit | None
    among: Sequence[Step]  # skipped steps the culprit may be one of
    changes: Sequence[tuple[Step, Step]]  # counted neighbours apart (a change)

    @property
    def good(self) -> Step:
        return self.record.steps[0]

    @property
    def drifted(self) -> bool:
        """Whether the culprit is within the least change that counts of
        the step before it: the cost crossed it by smaller steps, and its
        changes (:attr:`changes`) lie elsewhere."""
        if self.culprit is None:
            return False
        pair = (self.culprit.before.index, self.culprit.step.index)
        return pair not in [(a.index, b.index) for a, b in self.changes]

    @property
    def bad(self) -> Step:
        return self.record.steps[-1]


def percent(share: float) -> str:
    """A threshold as the user gave it: ``1%``, ``0.5%``."""
    return f"{share * 100:g}%"


def short(step: Step) -> str:
    """A step's name on the page: a commit's first 12 characters, a day."""
    return step.id[:12]


def _role(record: BisectRecord, step: Step, culprit: int | None) -> str:
    if step.skipped is not None:
        return "skipped"
    if step.index == 0:
        return "good"
    if step.index == len(record.steps) - 1:
        return "bad"
    return "culprit" if step.index == culprit else "counted"


def step_rows(record: BisectRecord, culprit: int | None) -> list[StepRow]:
    """A row per counted step and workload (a skipped step: one row)."""
    good = record.steps[0].counts or {}
    rows = []
    for step in record.counted():
        role = _role(record, step, culprit)
        if step.counts is None:
            rows.append(StepRow(step, "-", None, None, None, role))
            continue
        for name in record.workloads:
            found = step.counts.get(name)
            against = compare(good.get(name), found, "-")  # against good
            rows.append(
                StepRow(
                    step,
                    name,
                    found.per_request if found else None,
                    queries(found.statements) if found else None,
                    against.ratio,
                    role,
                    against.queries,
                )
            )
    return rows


def _culprit(record: BisectRecord) -> Culprit | None:
    found = record.conclusion
    if found is None or found.status != FOUND or found.first_past is None:
        return None
    step = record.steps[found.first_past]
    before = record.steps[found.last_within or 0]
    changes = [
        (
            name,
            compare(
                (before.counts or {}).get(name), (step.counts or {}).get(name), "-"
            ),
        )
        for name in record.workloads
    ]
    libraries = library_changes(before, step)
    why = _why_not_profiled(before, step, record.workloads)
    if why or before.profile is None or step.profile is None:
        return Culprit(step, before, changes, {}, why, libraries)
    functions = {
        name: top_changes(before.profile.get(name, {}), step.profile.get(name, {}))
        for name in record.workloads
    }
    return Culprit(step, before, changes, functions, None, libraries)


def _why_not_profiled(before: Step, step: Step, workloads: Sequence[str]) -> str | None:
    """Why the culprit's functions cannot be set against its parent's: a
    profile that failed (its reason), or none kept; None: both there."""
    for one in (before, step):
        reasons = one.not_profiled or {}
        for name in workloads:
            if reasons.get(name):
                return f"{short(one)}'s {name}: {reasons[name]}"
        if one.profile is None:
            return f"no profile kept for {short(one)}"
    return None


def top_changes(
    before: Profile, after: Profile, most: int = TOP_FUNCTIONS
) -> list[FunctionChange]:
    """The ``most`` functions whose own lines per iteration changed most
    (then their calls), those unchanged left out."""
    found = [
        FunctionChange(
            name,
            (before.get(name, (0.0, 0.0))[0], after.get(name, (0.0, 0.0))[0]),
            (before.get(name, (0.0, 0.0))[1], after.get(name, (0.0, 0.0))[1]),
        )
        for name in set(before) | set(after)
    ]
    moved = [f for f in found if f.more_lines or f.more_calls]
    moved.sort(key=lambda f: (-abs(f.more_lines), -abs(f.more_calls), f.name))
    return moved[:most]


def _moves(record: BisectRecord) -> str:
    """What moved from good to bad, in words."""
    found = record.conclusion
    said = []
    for move in found.moves if found else ():
        if move.measure == QUERIES:
            said.append(f"{move.workload}: {move.bad - move.good:+g} queries")
        else:
            said.append(
                f"{move.workload}: {move.bad / move.good - 1:+.2%} instructions"
            )
    return "; ".join(said)


def _least(record: BisectRecord) -> str:
    """The least change that counts, in words: the threshold, or the
    layouts' spread of good's and bad's counts when larger."""
    ends = (record.steps[0].counts or {}, record.steps[-1].counts or {})
    floor = max((c.spread for counts in ends for c in counts.values()), default=0.0)
    if floor <= record.threshold:
        return percent(record.threshold)
    return (
        f"{floor:.1%} (the layouts' spread of their counts, larger than the "
        f"threshold, {percent(record.threshold)})"
    )


def _summary(record: BisectRecord, culprit: Culprit | None) -> str:
    """The conclusion in one sentence."""
    found = record.conclusion
    good, bad = short(record.steps[0]), short(record.steps[-1])
    if found is None:
        return f"not concluded: {len(record.order)} steps counted so far"
    if found.status == NOTHING:
        return (
            f"nothing to find: {bad} is within {_least(record)} of {good} "
            "in instructions per request, and sends the same queries"
        )
    if found.status == ENDS_FAILED:
        why = next(
            (s.skipped for s in (record.steps[0], record.steps[-1]) if s.skipped), ""
        )
        return f"good or bad could not be counted: {why}"
    if culprit is not None:
        updated = ", ".join(
            f"{name} {old or '(absent)'} -> {new or '(absent)'}"
            for name, old, new in culprit.libraries
        )
        return (
            f"{short(culprit.step)} ({culprit.step.subject}) is the first step past "
            f"{_least(record)} from {good}: {_moves(record)} from {good} "
            f"to {bad}" + (f"; its libraries changed: {updated}" if updated else "")
        )
    low, high = found.last_within or 0, found.first_past or 0
    if found.status == AMONG_SKIPPED:
        return (
            f"the change is {short(record.steps[high])} or one of the "
            f"{len(found.skipped)} steps before it that could not be counted"
        )
    return (
        f"unfinished: the change lies after {short(record.steps[low])} and up to "
        f"{short(record.steps[high])} ({high - low - 1} steps between); run the "
        "same command to go on"
    )


def bisect_page(record: BisectRecord) -> BisectPage:
    """The page of ``record``."""
    found = record.conclusion
    culprit = _culprit(record)
    status = found.status if found else UNFINISHED
    among = [record.steps[i] for i in found.skipped] if found else []
    changes = [
        (record.steps[a], record.steps[b]) for a, b in (found.changes if found else ())
    ]
    rows = step_rows(record, culprit.step.index if culprit else None)
    return BisectPage(
        record, status, _summary(record, culprit), rows, culprit, among, changes
    )
