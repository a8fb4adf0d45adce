"""A capacity search's curve: each step's figures by offered rate, the knee.

Built from the steps' reports (each one arrival-rate workload, judged by
:mod:`.capacity_step`) and, where the run folder holds them, the servers'
CPU samples (:mod:`.server_view`, :mod:`.bottleneck`): per step the
offered and achieved rates, the response p50/p95/p99 of its judged half,
its drops and failures, whether it met the SLO, and each tier's busy
cores. The knee is the last offered rate (in rate order) whose response
p95 stays within :data:`KNEE_FACTOR` of the lowest rate's: past it,
waiting in queues, not serving, makes most of the response time. The
bottleneck line is that of the step at the sustained rate (else the
knee's): which tier's CPU, haproxy's queue.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rally_keystone_perf.layout.capacity import Step
from rally_keystone_perf.report.figures import bottleneck, capacity_step, slo
from rally_keystone_perf.report.figures.server_view import server_view
from rally_keystone_perf.report.readers.rally_json import load_report

if TYPE_CHECKING:  # pragma: no cover (a type only: report/ runs nothing of run/)
    from rally_keystone_perf.run.capacity import StepRun

KNEE_FACTOR = 2.0  # p95 this many times the lowest rate's: past the knee


@dataclass(frozen=True)
class CurveRow:
    """One step of the search."""

    number: int  # in the order the search took it
    figures: capacity_step.StepFigures
    tiers: tuple[tuple[str, float], ...]  # (tier, busy cores) in the window
    bottleneck: str | None  # the line without "bottleneck: "
    server_busy: bool = False  # a server tier's CPU busy (bottleneck.server_busy)
    probe: float | None = None  # the machine's speed probe before the step (s)

    def step(self) -> Step:
        """The search's view of the step, its servers' CPU known."""
        return self.figures.step(self.server_busy)

    @property
    def met(self) -> bool:
        return self.step().sustained


@dataclass(frozen=True)
class Curve:
    """Every step by offered rate, and what the search concluded."""

    objective: slo.Slo
    rows: list[CurveRow]  # by offered rate, then by number
    sustained: float | None
    above: float | None
    stopped: str
    rule: str
    task_rate: float | None = None  # the task file's own rate, if it has one

    @property
    def knee(self) -> float | None:
        """The last rate whose p95 is within :data:`KNEE_FACTOR` of the first."""
        found = [(r.figures.offered, r.figures.response[1]) for r in self.rows]
        p95s = [(rate, p95) for rate, p95 in found if p95 is not None]
        if not p95s:
            return None
        floor = p95s[0][1]
        within = [rate for rate, p95 in p95s if p95 <= KNEE_FACTOR * floor]
        return max(within)

    def row_at(self, rate: float | None) -> CurveRow | None:
        """The step at ``rate`` (its last when repeated), or None."""
        found = [r for r in self.rows if rate is not None and r.figures.offered == rate]
        return max(found, key=lambda r: r.number) if found else None


def curve_row(
    number: int, report: Path, objective: slo.Slo, probe: float | None = None
) -> CurveRow:
    """One step's row from its report (and its run folder's samples)."""
    (workload,) = load_report(report)
    figures = capacity_step.judge(workload, objective)
    view = server_view(report, [workload])
    if view is None:
        return CurveRow(number, figures, (), None, probe=probe)
    side = view.workloads[0]
    uses = bottleneck.tier_uses(side, view.cpus, view.processes)
    line = bottleneck.bottleneck_line(side, view.cpus, view.processes)
    return CurveRow(
        number,
        figures,
        tuple((u.name, u.cores) for u in uses),
        None if line is None else line.removeprefix(bottleneck.PREFIX),
        bottleneck.server_busy(uses, view.cpus),
        probe,
    )


def keeping_judge(
    objective: slo.Slo, judged: dict[Path, CurveRow]
) -> Callable[[Path], Step]:
    """A search's judge (a step's report in, its verdict out); each step's
    curve row kept in ``judged`` by report (read once, for the verdict and
    the curve)."""

    def judge(report: Path) -> Step:
        judged[report] = curve_row(0, report, objective)
        return judged[report].step()

    return judge


def taken_rows(
    judged: Mapping[Path, CurveRow], taken: Sequence[StepRun]
) -> list[CurveRow]:
    """The curve rows of the steps ``taken``, numbered and probed as run
    (``judged`` by :func:`keeping_judge`)."""
    return [
        dataclasses.replace(judged[s.report], number=s.number, probe=s.probe)
        for s in taken
    ]


def capacity_curve(
    rows: Sequence[CurveRow],
    objective: slo.Slo,
    sustained: float | None,
    above: float | None,
    stopped: str,
    rule: str,
    task_rate: float | None = None,
) -> Curve:
    """The curve of the steps' ``rows`` (:func:`curve_row`, each read once,
    when its step was judged), ordered by offered rate; ``task_rate`` the
    rate the task file itself asks, if any."""
    ordered = sorted(rows, key=lambda r: (r.figures.offered, r.number))
    return Curve(objective, ordered, sustained, above, stopped, rule, task_rate)
