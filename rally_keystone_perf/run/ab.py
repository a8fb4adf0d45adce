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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.options import Deployment
from rally_keystone_perf.layout.ab_state import SIDES, AbState
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.layout.state_files import DONE, Round
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


def _turns(plan: AbPlan) -> rounds.Turns:
    """The A/B as the rounds engine runs it: A and B, A started first."""
    return rounds.Turns(
        plan.folder,
        SIDES,
        plan.rounds,
        plan.deployments,
        plan.sessions,
        names={side: side.upper() for side in SIDES},
        targets={s: str(plan.options[s].get("target")) for s in plan.sessions},
        max_seconds=plan.max_seconds,
        noun="side",
    )


def run_ab(
    plan: AbPlan,
    task_for: TaskFor,
    echo: Echo,
    clock: Callable[[], float] = time.time,
) -> AbState:
    """Run the rounds (:func:`.rounds.run_turns`); return the state (also in
    ``<folder>/ab.json``)."""
    state = _new_state(plan)
    state.save()

    def new_round(round_no: int, order: list[str], started: float) -> Round:
        entry = Round(round_no, "".join(order), started=started)
        state.rounds.append(entry)
        return entry

    def sides_up(sides: Mapping[str, Side], started: float) -> None:
        for side, (run, _) in sides.items():
            state.sides[side]["run"] = str(run.root)
        state.started = started

    def task(side: str, round_no: int, run: RunDir) -> tuple[Path, list[str]]:
        return task_for(run), [f"ab:{side}", f"round:{round_no}"]

    try:
        rounds.run_turns(
            _turns(plan), state, rounds.Hooks(new_round, sides_up), task, echo, clock
        )
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
