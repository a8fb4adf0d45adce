"""Instructions and SQL statements per request, B against A, and the
gate's checks on them.

A count does not drift with the machine (callgrind counts instructions, not
seconds; a replay's statements are the same every time): B against A is
read as it is, with no interval. The gate fails a workload whose
instructions' ratio exceeds ``1 + CountLimits.instructions``, or whose
queries (reads and writes of Keystone's tables, per request) exceed A's by
more than ``CountLimits.statements``: an absolute number, since one more
query is a finding on MariaDB even where SQLite makes it cheap.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rally_keystone_perf.layout.counts import QUERIES
from rally_keystone_perf.report.figures import verdicts
from rally_keystone_perf.report.figures.gate import ERROR, FAIL, PASS, Check
from rally_keystone_perf.report.readers.instructions import (
    InstructionCounts,
    SideCount,
)

CRITERION = "instructions/request"
STATEMENTS = "statements/request"


@dataclass(frozen=True)
class CountLimits:
    """What the gate judges of the counts; None: not judged."""

    instructions: float | None = None  # the largest B/A - 1
    statements: float | None = None  # the most queries more per request


NOT_JUDGED = CountLimits()


def queries(statements: dict[str, float] | None) -> float | None:
    """Reads and writes per request; None when not counted."""
    return None if statements is None else sum(statements.get(k, 0) for k in QUERIES)


def control(statements: dict[str, float] | None) -> float | None:
    """Transaction control, PRAGMA and the rest per request: not judged."""
    if statements is None:
        return None
    return sum(n for kind, n in statements.items() if kind not in QUERIES)


@dataclass(frozen=True)
class CountChange:
    """One side's count against another's: what every comparison of two
    counts shows (releases, a study's ratios)."""

    ratio: float | None  # instructions per request, later over earlier
    queries: float | None  # reads and writes per request, later less earlier
    verdict: verdicts.Verdict  # not measurable, with why, when not counted


def compare(
    earlier: SideCount | None, later: SideCount | None, why_not: str
) -> CountChange:
    """``later`` against ``earlier``: the ratio of their instructions per
    request judged by :func:`.verdicts.counted` (past the larger layouts'
    spread and 1%), and the queries more per request; not measurable with
    ``why_not`` when either was not counted."""
    if earlier is None or later is None or not earlier.per_request:
        return CountChange(None, None, verdicts.not_measurable(why_not))
    more = None
    if earlier.statements is not None and later.statements is not None:
        more = (queries(later.statements) or 0) - (queries(earlier.statements) or 0)
    ratio = later.per_request / earlier.per_request
    said = verdicts.counted(ratio, max(earlier.spread, later.spread))
    return CountChange(ratio, more, said)


@dataclass(frozen=True)
class InstructionRow:
    """One workload's counts: A's, B's, their ratio and their spreads."""

    position: int
    scenario: str
    a: float | None
    b: float | None
    spread_a: float | None
    spread_b: float | None
    statements_a: dict[str, float] | None = None  # per request, by kind
    statements_b: dict[str, float] | None = None

    @property
    def ratio(self) -> float | None:
        """B's instructions per request over A's."""
        return self.b / self.a if self.a and self.b is not None else None


def rows(counts: InstructionCounts | None) -> dict[int, InstructionRow]:
    """A row per workload position counted on either side."""
    if counts is None:
        return {}
    a, b = counts.sides.get("a", {}), counts.sides.get("b", {})
    found = {}
    for position in sorted(set(a) | set(b)):
        either = a.get(position) or b[position]
        found[position] = InstructionRow(
            position,
            either.scenario,
            a[position].per_request if position in a else None,
            b[position].per_request if position in b else None,
            a[position].spread if position in a else None,
            b[position].spread if position in b else None,
            a[position].statements if position in a else None,
            b[position].statements if position in b else None,
        )
    return found


def check(label: str, row: InstructionRow | None, max_increase: float) -> Check:
    """FAIL when B costs more than ``1 + max_increase`` times A's count;
    ERROR when the workload was not counted on both sides."""
    if row is None or row.ratio is None:
        return Check(
            label,
            CRITERION,
            ERROR,
            message="not counted on both sides: run the A/B with --instructions",
        )
    change = row.ratio - 1
    status = FAIL if change > max_increase else PASS
    message = (
        f"B/A {row.ratio:.4f} (at most {1 + max_increase:.4f}); "
        f"layouts within {max(row.spread_a or 0, row.spread_b or 0):.2%}"
    )
    return Check(label, CRITERION, status, row.a, row.b, change, None, message)


def statement_check(label: str, row: InstructionRow | None, most: float) -> Check:
    """FAIL when B sends more than ``most`` queries per request more than A;
    ERROR when the workload's statements were not counted on both sides."""
    a = queries(row.statements_a) if row else None
    b = queries(row.statements_b) if row else None
    if row is None or a is None or b is None:
        return Check(
            label,
            STATEMENTS,
            ERROR,
            message="statements not counted on both sides: run the A/B with "
            "--instructions (this version counts them)",
        )
    change = b - a
    status = FAIL if change > most + 1e-9 else PASS
    message = (
        f"reads and writes per request: A {a:g}, B {b:g} ({change:+g}; at most "
        f"{most:+g}); transaction control and PRAGMA not judged: A "
        f"{control(row.statements_a):g}, B {control(row.statements_b):g}"
    )
    return Check(label, STATEMENTS, status, a, b, change, None, message)


def checks(
    labels: Sequence[tuple[int, str]],
    found: dict[int, InstructionRow],
    limits: CountLimits,
    not_counted: Mapping[int, str] | None = None,
) -> list[Check]:
    """A check per ``(position, label)`` workload of the A/B and count
    judged; a workload the counts left out (``not_counted``: why) is an
    ERROR that says why."""
    made = []
    for position, label in labels:
        row = found.get(position)
        these = []
        if limits.instructions is not None:
            these.append(check(label, row, limits.instructions))
        if limits.statements is not None:
            these.append(statement_check(label, row, limits.statements))
        why = (not_counted or {}).get(position)
        if row is None and why:
            these = [
                dataclasses.replace(c, message=f"not counted: {why}") for c in these
            ]
        made += these
    return made
