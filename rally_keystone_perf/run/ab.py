"""A/B: two Keystones up at once, a task's workloads run on each in turns.

Both sides start before the first round (each in its own run folder under
the A/B folder, on its own port) and stay up until the last. Round ``r``
runs the whole task on each side, in the counterbalanced order of
:func:`round_order` (AB, BA, BA, AB, then again): over every four rounds
each side goes first twice, so a drift of the machine's speed during the
rounds falls on both sides alike. ``ab.json``
(:mod:`rally_keystone_perf.layout.ab_state`) records the plan, each round's
order, reports and times as they end; a Ctrl-C or SIGTERM aborts
the running task, stops both sides and leaves the rounds done so far (the
figures use complete rounds only: :mod:`rally_keystone_perf.report.figures.ab`).
A side may be a Keystone someone else runs (``--a '--os-cloud NAME'``): its
session (:data:`SideSession`) starts nothing and sweeps what the rounds
created when the A/B ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.options import Deployment
from rally_keystone_perf.layout.ab_state import (
    DONE,
    FAILED,
    INTERRUPTED,
    SIDES,
    AbState,
    Round,
)
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import rounds

Echo = Callable[[str], None]
TaskFor = Callable[[RunDir], Path]  # the task file Rally runs in a side's run
SideSession = rounds.SideSession
Side = rounds.Side


def round_order(round_no: int) -> str:
    """``"ab"`` or ``"ba"``: AB, BA, BA, AB for rounds 1-4, then again."""
    return "".join(rounds.balanced_order(round_no, SIDES))


@dataclass(frozen=True)
class AbPlan:
    """What to run: the sides' deployments (or sessions), the task, how
    many rounds."""

    folder: Path
    task: Path
    deployments: Mapping[str, Deployment]  # the sides started here
    options: Mapping[str, dict[str, Any]]  # side -> its launch options, recorded
    rounds: int
    max_seconds: float | None = None  # no new round past this budget
    sessions: Mapping[str, SideSession] = field(default_factory=dict)  # clouds


def _sides(plan: AbPlan, echo: Echo) -> AbstractContextManager[dict[str, Side]]:
    """Both sides up (A first), both stopped on the way out."""
    return rounds.open_sides(
        plan.folder,
        SIDES,
        plan.deployments,
        plan.sessions,
        echo,
        names={side: side.upper() for side in SIDES},
        targets={s: str(plan.options[s].get("target")) for s in plan.sessions},
    )


def _budget_left(plan: AbPlan, state: AbState, clock: Callable[[], float]) -> bool:
    """Whether another round fits in ``--max-minutes`` (by the mean so far)."""
    done = state.complete_rounds()
    if plan.max_seconds is None or not done or state.started is None:
        return True
    elapsed = clock() - state.started
    return elapsed + elapsed / len(done) <= plan.max_seconds


def run_ab(
    plan: AbPlan,
    task_for: TaskFor,
    echo: Echo,
    clock: Callable[[], float] = time.time,
) -> AbState:
    """Run the rounds; return the state (also in ``<folder>/ab.json``)."""
    state = _new_state(plan)
    state.save()
    try:
        with _sides(plan, echo) as sides:
            for side, (run, _) in sides.items():
                state.sides[side]["run"] = str(run.root)
            state.started = clock()
            state.save()
            _rounds(plan, state, sides, task_for, echo, clock)
    except KeyboardInterrupt:
        state.status = INTERRUPTED
        echo(f"interrupted: {len(state.complete_rounds())} complete rounds kept")
    except BaseException:
        state.status = FAILED
        raise
    finally:
        state.finished = clock()
        state.save()
    return state


def counts_only(plan: AbPlan, clock: Callable[[], float] = time.time) -> AbState:
    """An A/B of instruction counts alone (``ab --instructions --rounds 0``).

    No side is started as a server and nothing is timed: ``ab.json`` names
    the task and the sides' options, with no rounds, and the counts
    (:mod:`.instructions`, ``instructions.json``) are its only figures,
    which the machine's drift does not move.
    """
    state = _new_state(plan)
    state.status = DONE
    state.started = state.finished = clock()
    state.save()
    return state


def _new_state(plan: AbPlan) -> AbState:
    """The plan's ``ab.json`` before any round: its task, sides and rounds."""
    return AbState(
        folder=plan.folder,
        task=str(plan.task),
        sides={s: {"options": dict(plan.options[s])} for s in SIDES},
        rounds_planned=plan.rounds,
    )


def _rounds(
    plan: AbPlan,
    state: AbState,
    sides: Mapping[str, Side],
    task_for: TaskFor,
    echo: Echo,
    clock: Callable[[], float],
) -> None:
    """Every planned round (within the budget), each side in its turn."""
    for round_no in range(1, plan.rounds + 1):
        if not _budget_left(plan, state, clock):
            echo(f"time budget reached after {round_no - 1} rounds")
            break
        entry = Round(round_no, round_order(round_no), started=clock())
        state.rounds.append(entry)
        for side in entry.order:
            run, runner = sides[side]
            echo(f"round {round_no}/{plan.rounds}: side {side.upper()}")
            outcome = runner.start_task(
                task_for(run), tags=[f"ab:{side}", f"round:{round_no}"]
            )
            entry.exit_codes[side] = outcome.exit_code
            if outcome.report is not None and not outcome.interrupted:
                entry.reports[side] = str(outcome.report)
            state.save()
            if outcome.interrupted:
                raise KeyboardInterrupt
        entry.finished = clock()
        state.save()
    state.status = DONE
