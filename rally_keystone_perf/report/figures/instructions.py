"""Instructions per request, B against A, and the gate's check on them.

A count does not drift with the machine (callgrind counts instructions, not
seconds): the ratio B/A is read as it is, with no interval. The gate fails
a workload whose ratio exceeds ``1 + max_increase``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rally_keystone_perf.report.figures.gate import ERROR, FAIL, PASS, Check
from rally_keystone_perf.report.readers.instructions import InstructionCounts

CRITERION = "instructions/request"


@dataclass(frozen=True)
class InstructionRow:
    """One workload's counts: A's, B's, their ratio and their spreads."""

    position: int
    scenario: str
    a: float | None
    b: float | None
    spread_a: float | None
    spread_b: float | None

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


def checks(
    labels: Sequence[tuple[int, str]],
    found: dict[int, InstructionRow],
    max_increase: float,
) -> list[Check]:
    """A check per ``(position, label)`` workload of the A/B."""
    return [check(label, found.get(pos), max_increase) for pos, label in labels]
