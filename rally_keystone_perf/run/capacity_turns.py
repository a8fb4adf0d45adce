"""Capacity searches of several configs, their steps taken in turns.

A study's capacity row per config is a capacity search (:mod:`.capacity`)
against that config's Keystone. Searched one after the other, the configs'
rates would compare machine states minutes apart: this machine drifts by
tens of percent in that time. With every config up at once (a study in
rounds), each search instead takes one step per turn, the configs in the
counterbalanced order of :func:`.rounds.balanced_order` (A B, B A, B A,
A B ...), so a drift falls alike on every config's steps, as the rounds do
for the closed-model rows: the searches are a mode of the rounds engine
(:class:`Searching`, :func:`.rounds.take_turns`). Each search is
:func:`.capacity_search.searcher`,
a generator: it asks for a rate and is given that step's verdict, whoever
else steps in between. (Clusters of several node counts cannot all be up at
once; seed 001's then search one config at a time, through the same code
with one side up.)

``capacity.json`` in the study's capacity folder records every step as it
ends (config, number, rate, report, speed probe). The same command again
replays them into fresh searches (each step's report judged again: the
searches are deterministic given their verdicts) and goes on from there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.options import Deployment
from rally_keystone_perf.layout import state_files
from rally_keystone_perf.run import (
    capacity,
    capacity_search,
    capacity_steps,
    rounds,
    session,
)
from rally_keystone_perf.run.matrix import MatrixError

STATE_FILE = "capacity.json"
STATE_VERSION = 1
_SAME_RATE = 1e-6  # a recorded step's rate against the one asked (relative)


@dataclass
class Search:
    """One config's search in progress: the rate it asks for next, or its
    outcome once it has ended; the steps it took."""

    label: str
    steps: capacity_search.Steps
    asked: float | None = None
    outcome: capacity_search.Outcome | None = None
    taken: list[capacity.StepRun] = field(default_factory=list)

    @classmethod
    def start(cls, label: str, limits: capacity_search.Limits) -> Search:
        search = cls(label, capacity_search.searcher(limits))
        search.asked = next(search.steps)
        return search

    @property
    def done(self) -> bool:
        return self.outcome is not None

    def give(self, step: capacity.StepRun) -> None:
        """The step it asked for, judged: its next rate, or its outcome."""
        self.taken.append(step)
        try:
            self.asked = self.steps.send(step.step)
        except StopIteration as ended:
            self.asked, self.outcome = None, ended.value


@dataclass
class CapacityState:
    """``capacity.json``: what the searches run, and every step so far."""

    folder: Path
    plan: dict[str, Any]  # the SLO, the limits, the task: a resume must match
    steps: list[dict[str, Any]] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return self.folder / STATE_FILE

    def add(self, label: str, step: capacity.StepRun) -> None:
        """Record ``label``'s step and write the file."""
        self.steps.append({"label": label, **step.record()})
        state_files.write_json(
            self.path,
            {"version": STATE_VERSION, "plan": self.plan, "steps": self.steps},
        )

    @classmethod
    def open(cls, folder: Path, plan: dict[str, Any], restart: bool) -> CapacityState:
        """The folder's steps to replay, or a new state.

        :raises MatrixError: its steps are of another plan (SLO, limits,
            task): ``--restart`` or another ``--study-dir``.
        """
        path = folder / STATE_FILE
        if restart or not path.exists():
            return cls(folder, plan)
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            old_plan, steps = document["plan"], list(document["steps"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise MatrixError(f"{path}: not capacity steps ({exc})") from None
        if old_plan != plan:
            raise MatrixError(
                f"{path} holds the steps of another SLO, search or task; use "
                "another --study-dir, or --restart to search again"
            )
        return cls(folder, plan, steps)


def resumed(
    labels: Sequence[str],
    limits: capacity_search.Limits,
    state: CapacityState,
    judge: capacity.Judge,
) -> dict[str, Search]:
    """Each config's search with its recorded steps replayed into it (those
    of configs not in ``labels`` are kept in the file, not replayed).

    :raises MatrixError: a recorded step is not the one its search asks for
        now, or its report is gone.
    """
    searches = {label: Search.start(label, limits) for label in labels}
    for entry in state.steps:
        search = searches.get(entry["label"])
        if search is None:
            continue  # a config not searched this time (--configs)
        rate = float(entry["rate"])
        if search.asked is None or not _same(search.asked, rate):
            raise MatrixError(
                f"{state.path}: step {entry['number']} of {entry['label']} at "
                f"{rate:g}/s is not what its search asks for now; --restart"
            )
        report = Path(entry["report"])
        if not report.is_file():
            raise MatrixError(f"{state.path}: step report {report} is gone; --restart")
        probe = entry.get("probe")
        search.give(
            capacity.StepRun(int(entry["number"]), rate, report, judge(report), probe)
        )
    return searches


def _same(asked: float, recorded: float) -> bool:
    return abs(asked - recorded) <= _SAME_RATE * max(asked, recorded)


@dataclass
class Searching:
    """The searches as a mode of the rounds engine
    (:class:`.rounds.Mode`): each config whose search has not ended takes
    one step per turn (its workload and step length from ``plans``), each
    step recorded in ``state`` as it ends.

    :raises capacity.CapacityError: a step left no report.
    """

    searches: Mapping[str, Search]
    plans: Mapping[str, capacity_steps.StepPlan]
    judge: capacity.Judge
    state: CapacityState
    echo: capacity.Echo

    def sides_of(self, turn: int) -> list[str]:
        return [label for label, search in self.searches.items() if not search.done]

    def begin(self, turn: int, order: Sequence[str]) -> None:
        """Nothing to record before a turn."""

    def step(self, turn: int, side: str, at: rounds.Side) -> bool:
        search = self.searches[side]
        assert search.asked is not None
        run, rally = at
        number = len(search.taken) + 1
        step = capacity.run_step(
            rally,
            run,
            self.plans[side],
            number,
            search.asked,
            self.judge,
            self.echo,
            side,
        )
        if step is None:
            return False
        self.state.add(side, step)
        search.give(step)
        return True

    def end(self, turn: int) -> None:
        """Nothing to record after a turn."""


def search_all(
    searching: Searching,
    folder: Path,
    deployments: Mapping[str, Deployment],
    together: bool,
) -> bool:
    """The searches of ``deployments`` to their end; False when Ctrl-C or
    SIGTERM cut a step (the steps done are recorded).

    ``together``: every config up at once, their steps taken in turns;
    else each config started alone (clusters of several node counts cannot
    all be up at once), its search run to its end, then stopped.
    """
    echo = searching.echo
    if together:
        if not deployments:
            return True
        labels = list(deployments)
        with rounds.open_sides(folder, labels, deployments, {}, echo) as sides:
            return rounds.take_turns(searching, sides)
    for label, deployment in deployments.items():
        echo(f"capacity of {label}: starting it alone")
        with session.keystone_session(folder / label, deployment, echo) as side:
            if not rounds.take_turns(searching, {label: side}):
                return False
    return True
