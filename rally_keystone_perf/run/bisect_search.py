"""The bisect's search: which step to count next, and what the counts say.

A history is a list of steps in order, the good one first and the bad one
last (Keystone's first-parent commits, or the days of a library range).
Each step counted has a :class:`Cost` (instructions and queries per
request, by workload) or a :class:`Skip` (it did not build, or its Keystone
did not start: ``git bisect skip``).

The search holds no state of its own: :func:`next_step` reads the outcomes
known so far and names the step to count next, so a search stopped by
Ctrl-C resumes from the outcomes it kept. Good and bad are counted first;
the measures that moved between them past the threshold, or past the
layouts' spread of their instruction counts when larger (:func:`moved`,
:func:`least`), decide each step: past when any of them is past the
threshold from good's, in bad's direction (:func:`is_past`). The next step
is the one nearest the middle of the range between the last step not past
and the first past; skipped steps (and any whose count lacks a moved
measure) are passed over, so a step beside them is counted instead.
:func:`conclude` says what was found.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rally_keystone_perf.layout.bisect import (
    AMONG_SKIPPED,
    ENDS_FAILED,
    FOUND,
    INSTRUCTIONS,
    NOTHING,
    QUERIES,
    UNFINISHED,
    Conclusion,
    Move,
)

LEAST_QUERIES = 0.5  # queries per request: one more in every other request


@dataclass(frozen=True)
class Cost:
    """One step's costs per request, by workload."""

    instructions: Mapping[str, float]
    queries: Mapping[str, float]  # reads and writes; absent: not counted
    spread: Mapping[str, float] = dataclasses.field(default_factory=dict)
    # the spread of the instructions' memory layouts, relative


@dataclass(frozen=True)
class Skip:
    """A step that could not be counted, and why."""

    reason: str


Outcome = Cost | Skip


def measured(cost: Cost, measure: str) -> Mapping[str, float]:
    """``cost``'s figures of one measure, by workload."""
    return cost.instructions if measure == INSTRUCTIONS else cost.queries


def value(move: Move, cost: Cost) -> float | None:
    """The moved measure of the moved workload in ``cost``; None: not
    counted."""
    return measured(cost, move.measure).get(move.workload)


def _past(measure: str, good: float, value: float, sign: int, threshold: float) -> bool:
    """Whether ``value`` lies past the threshold from ``good``, ``sign``'s way."""
    if measure == QUERIES:
        return (value - good) * sign >= LEAST_QUERIES
    return bool(good) and (value / good - 1) * sign > threshold


def moved(good: Cost, bad: Cost, threshold: float) -> list[Move]:
    """The measures of workloads counted on both that moved past
    ``threshold`` (instructions: relative; queries: half a query per
    request) from good to bad."""
    found = []
    for measure in (INSTRUCTIONS, QUERIES):
        before, after = measured(good, measure), measured(bad, measure)
        for workload in sorted(set(before) & set(after)):
            a, b = before[workload], after[workload]
            sign = 1 if b >= a else -1
            floor = 0.0
            if measure == INSTRUCTIONS:
                floor = max(c.spread.get(workload, 0.0) for c in (good, bad))
            if _past(measure, a, b, sign, max(threshold, floor)):
                found.append(Move(workload, measure, a, b, floor))
    return found


def is_past(cost: Cost, moves: Sequence[Move], threshold: float) -> bool | None:
    """Whether any moved measure of ``cost`` is past the threshold from
    good's, the way bad went; None when a moved measure was not counted
    (the step says nothing: it is passed over like a skipped one)."""
    figures = [(move, value(move, cost)) for move in moves]
    if any(found is None for _, found in figures):
        return None
    return any(
        _past(m.measure, m.good, v, 1 if m.bad >= m.good else -1, least(m, threshold))
        for m, v in figures
        if v is not None
    )


def least(move: Move, threshold: float) -> float:
    """The least relative change of ``move``'s instructions that counts: the
    threshold, or the layouts' spread at good and bad when larger (a
    smaller one is within what the memory layouts alone move a count)."""
    return max(threshold, move.floor)


def _verdicts(
    outcomes: Mapping[int, Outcome], moves: Sequence[Move], threshold: float
) -> dict[int, bool]:
    """Each step counted with every moved measure, by index: past the
    threshold or not."""
    found = {
        index: is_past(cost, moves, threshold)
        for index, cost in sorted(outcomes.items())
        if isinstance(cost, Cost)
    }
    return {index: past for index, past in found.items() if past is not None}


def bracket(past: Mapping[int, bool]) -> tuple[int, int]:
    """The range left to search: the last step not past before the first
    step past."""
    first_past = min(i for i, is_it in past.items() if is_it)
    last_within = max(i for i, is_it in past.items() if not is_it and i < first_past)
    return last_within, first_past


def _ends(steps: int, outcomes: Mapping[int, Outcome]) -> tuple[Cost, Cost] | None:
    good, bad = outcomes.get(0), outcomes.get(steps - 1)
    return (good, bad) if isinstance(good, Cost) and isinstance(bad, Cost) else None


def next_step(
    steps: int, outcomes: Mapping[int, Outcome], threshold: float
) -> int | None:
    """The index of the step to count next (good, bad, then halving);
    None when the search is over (:func:`conclude` says how)."""
    for end in (0, steps - 1):
        if end not in outcomes:
            return end
    ends = _ends(steps, outcomes)
    if ends is None:
        return None
    moves = moved(*ends, threshold)
    if not moves:
        return None
    low, high = bracket(_verdicts(outcomes, moves, threshold))
    open_steps = [i for i in range(low + 1, high) if i not in outcomes]
    if not open_steps:
        return None
    middle = (low + high) / 2
    return min(open_steps, key=lambda i: (abs(i - middle), i))


def _near(measure: str, reference: float, value: float, threshold: float) -> bool:
    if measure == QUERIES:
        return abs(value - reference) < LEAST_QUERIES
    return bool(reference) and abs(value / reference - 1) <= threshold


def apart(before: Cost, after: Cost, moves: Sequence[Move], threshold: float) -> bool:
    """Whether a moved measure differs past the threshold from ``before``
    to ``after``, either way (a measure either lacks: not apart)."""
    for move in moves:
        was, now = value(move, before), value(move, after)
        if was is not None and now is not None:
            if not _near(move.measure, was, now, least(move, threshold)):
                return True
    return False


def changes(
    costs: Mapping[int, Cost], moves: Sequence[Move], threshold: float
) -> list[tuple[int, int]]:
    """Each pair of neighbouring counted steps :func:`apart`: a change
    between them. More than one: the cost changed more than once in the
    range. A culprit not among them crossed the threshold by steps each
    smaller than it: a drift, whose changes past the threshold are
    elsewhere."""
    ordered = sorted(costs.items())
    return [
        (before, after)
        for (before, was), (after, now) in zip(ordered, ordered[1:], strict=False)
        if apart(was, now, moves, threshold)
    ]


def conclude(
    steps: int, outcomes: Mapping[int, Outcome], threshold: float
) -> Conclusion:
    """What the outcomes known say: nothing to find, the culprit, the
    skipped steps it hides among, or a search still unfinished."""
    ends = _ends(steps, outcomes)
    if ends is None:
        return Conclusion(ENDS_FAILED, ())
    moves = moved(*ends, threshold)
    if not moves:
        return Conclusion(NOTHING, moves)
    verdicts = _verdicts(outcomes, moves, threshold)
    low, high = bracket(verdicts)
    between = range(low + 1, high)
    skipped = [i for i in between if i in outcomes and i not in verdicts]
    if len(skipped) < len(between):
        status = UNFINISHED
    else:
        status = AMONG_SKIPPED if skipped else FOUND
    costs = {i: found for i, found in outcomes.items() if isinstance(found, Cost)}
    return Conclusion(
        status, moves, low, high, skipped, changes(costs, moves, threshold)
    )


def search(
    steps: int,
    measure: Callable[[int], Outcome],
    outcomes: dict[int, Outcome],
    threshold: float,
    most: int | None = None,
) -> Conclusion:
    """Count steps by ``measure`` until the search is over, or ``most``
    counts have been made by this call; ``outcomes`` (resumed: those known
    before) gets each outcome as it comes, so an interrupted search keeps
    them."""
    made = 0
    while (index := next_step(steps, outcomes, threshold)) is not None:
        if most is not None and made >= most:
            break
        outcomes[index] = measure(index)
        made += 1
    return conclude(steps, outcomes, threshold)
