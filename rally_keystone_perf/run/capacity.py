"""A capacity search against one running Keystone: each step a Rally task.

The search (:mod:`.capacity_search`) asks for a rate; this module writes
that step's task (:mod:`.capacity_steps`: the user's workload under the
arrival-rate runner), runs it through the session's Rally and hands its
report to ``judge``, which the caller composes from the report's figures
(a step's report in, a :class:`~rally_keystone_perf.layout.capacity.Step`
out): this floor runs things, the report floor reads them. Every step's
report is kept in the run folder, in order, so that a search cut short by
Ctrl-C or SIGTERM keeps the steps done (:class:`SearchInterrupted` carries them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy import machine_probe
from rally_keystone_perf.layout.capacity import Step
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import capacity_search, capacity_steps
from rally_keystone_perf.run.rally_runner import RallyRunner

Judge = Callable[[Path], Step]  # a step's report -> its verdict
Echo = Callable[[str], None]
TAG = "capacity"  # the Rally tag of every step's task


class CapacityError(Exception):
    """A step could not be run or judged; the message says which and why."""


@dataclass(frozen=True)
class StepRun:
    """One step as run: its number, rate, report and verdict."""

    number: int
    rate: float
    report: Path
    step: Step
    probe: float | None = None  # the machine's speed probe before it (s)

    def record(self) -> dict[str, Any]:
        """run.json's entry of it (``capacity_steps``)."""
        return {
            "number": self.number,
            "rate": self.rate,
            "report": str(self.report),
            "probe": self.probe,
        }


class SearchInterrupted(Exception):
    """Ctrl-C or SIGTERM during a step; ``steps`` are those complete."""

    def __init__(self, steps: list[StepRun]) -> None:
        super().__init__("interrupted")
        self.steps = steps


def run_search(
    rally: RallyRunner,
    run: RunDir,
    plan: capacity_steps.StepPlan,
    limits: capacity_search.Limits,
    judge: Judge,
    echo: Echo,
) -> tuple[capacity_search.Outcome, list[StepRun]]:
    """Search for the highest sustained rate; the outcome and every step.

    :raises SearchInterrupted: Ctrl-C or SIGTERM during a step.
    :raises CapacityError: a step left no report.
    """
    done: list[StepRun] = []

    def measure(rate: float) -> Step:
        taken = run_step(rally, run, plan, len(done) + 1, rate, judge, echo)
        if taken is None:
            raise SearchInterrupted(done)
        done.append(taken)
        run.write_state(capacity_steps=[s.record() for s in done])
        return taken.step

    outcome = capacity_search.search(measure, limits)
    return outcome, done


def run_step(
    rally: RallyRunner,
    run: RunDir,
    plan: capacity_steps.StepPlan,
    number: int,
    rate: float,
    judge: Judge,
    echo: Echo,
    label: str = "",
) -> StepRun | None:
    """Step ``number`` at ``rate``: the machine probed, its task written into
    the run folder, run and judged; None when Ctrl-C or SIGTERM cut it.
    ``label`` names the config in the progress lines (a study's).

    :raises CapacityError: the step left no report.
    """
    folder = run.root / capacity_steps.FOLDER
    task = capacity_steps.write_step(folder, number, plan, rate)
    speed = _probe(echo)
    words = "" if speed is None else f" (machine speed probe {speed:.3f} s)"
    who = f"{label}: " if label else ""
    echo(f"{who}capacity step {number}: {rate:.1f}/s for {plan.seconds:g} s{words}")
    outcome = rally.start_task(task, tags=[TAG])
    if outcome.interrupted:
        return None
    if outcome.report is None:
        raise CapacityError(
            f"{who}step {number} at {rate:.1f}/s left no report (rally exited "
            f"{outcome.exit_code}; see {rally.log})"
        )
    step = judge(outcome.report)
    echo(f"  {verdict_words(step)}")
    return StepRun(number, rate, outcome.report, step, speed)


def _probe(echo: Echo) -> float | None:
    """The machine's speed now (a fixed CPU loop's seconds); None if it
    cannot be taken (said, the step runs all the same)."""
    try:
        return machine_probe.probe()
    except machine_probe.PROBE_ERRORS as exc:
        echo(f"machine probe skipped: {type(exc).__name__} {exc}")
        return None


def verdict_words(step: Step) -> str:
    """``met: 48.7/s of 50/s`` or ``missed: ...`` with what was missed."""
    head = "met" if step.sustained else "missed"
    words = f"{head}: {step.achieved:.1f}/s answered of {step.offered:.1f}/s offered"
    if step.generator_limited:
        words += "; the load generator fell behind"
        words += "" if step.generator_bound else " (the server took the CPU)"
    return "; ".join([words, *step.misses])
