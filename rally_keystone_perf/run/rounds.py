"""Rounds taken in turns: several deployments up at once, each measured in
every round, in a counterbalanced order.

This machine's speed drifts by tens of percent over minutes; a comparison
of two deployments measured one after the other compares two machine
states. Measured in rounds taken in turns, each round holds every side at
nearly the same machine state, and over the rounds every side holds every
position in the order equally often (:func:`balanced_order`), so a drift
during the rounds falls on all sides alike.

This is the one rounds engine. :func:`take_turns` takes turns of a
:class:`Mode`: each turn, the sides it names take their step in the order
of :func:`balanced_order`. Its two modes:

rounds (:func:`run_turns`)
    every side up once (:func:`open_sides`), each round's task run on each
    side, the state file saved after every task, no new round past a time
    budget, the time left said as it goes, the complete rounds kept on
    Ctrl-C or SIGTERM. The A/B (:mod:`.ab`, two sides, ``ab.json``) and the
    studies and releases (:mod:`.study_rounds`, a side per config,
    ``rounds.json``) each give it a :class:`Turns` plan, its state
    (:class:`RoundsRecord`) and what differs, the task a side runs in a
    round (:data:`TaskFor`);
capacity steps (:class:`.capacity_turns.Searching`)
    each config's capacity search takes one step per turn until it ends,
    its steps recorded in ``capacity.json``;
visits (:class:`.study_matrix.Visits`)
    configs that cannot be up together (clusters) visited A B ... B A, a
    config a turn: its step runs its matrix, each cell's Keystone up and
    down on its own (``matrix.json`` a visit).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from rally_keystone_perf.deploy.options import Deployment, LaunchError
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.layout.state_files import DONE, FAILED, INTERRUPTED, RUNNING
from rally_keystone_perf.run import rally_runner, session
from rally_keystone_perf.run.matrix import duration_text

Echo = Callable[[str], None]
Side = tuple[RunDir, rally_runner.RallyRunner]
# a side's session on a Keystone not started here (a cloud): its folder in,
# the run folder and Rally out, whatever is to do on the way out done
SideSession = Callable[[Path], AbstractContextManager[Side]]


class SideError(LaunchError):
    """A side's Keystone did not start: which side, and why."""

    def __init__(self, side: str, reason: str) -> None:
        super().__init__(f"side {side}: {reason}")
        self.side = side
        self.reason = reason


def balanced_order(round_no: int, sides: Sequence[str]) -> list[str]:
    """The sides' order in round ``round_no`` (from 1).

    Rounds 1..N rotate the sides (each first once), rounds N+1..2N are the
    same rotations reversed, then again: over every 2N rounds each side
    holds each position twice and follows each other side as often as it
    precedes it. Two sides: AB, BA, BA, AB.
    """
    count = len(sides)
    block, shift = divmod(round_no - 1, count)
    order = [*sides[shift:], *sides[:shift]]
    return order[::-1] if block % 2 else order


@contextlib.contextmanager
def open_sides(
    folder: Path,
    sides: Sequence[str],
    deployments: Mapping[str, Deployment],
    sessions: Mapping[str, SideSession],
    echo: Echo,
    names: Mapping[str, str] | None = None,
    targets: Mapping[str, str] | None = None,
) -> Iterator[dict[str, Side]]:
    """Every side up, in ``sides``' order, each in ``<folder>/<side>``;
    all stopped on the way out (also on errors, Ctrl-C and SIGTERM).

    A side in ``sessions`` is a Keystone someone else runs (its session
    starts nothing); the others are started here from ``deployments``.
    ``names`` are the sides' names in the messages (default: the keys),
    ``targets`` what a session's side measures (its auth URL). A side
    started here samples its server's CPU and memory during its own tasks
    only: the others' load is not watched from an idle side.
    """
    with contextlib.ExitStack() as stack:
        found = {}
        for side in sides:
            shown = (names or {}).get(side, side)
            where = folder / side
            if side in sessions:
                echo(f"side {shown}: {(targets or {}).get(side)}")
                found[side] = stack.enter_context(sessions[side](where))
                continue
            echo(f"starting side {shown}")
            try:
                found[side] = stack.enter_context(
                    session.keystone_session(
                        where, deployments[side], echo, sample_idle=False
                    )
                )
            except LaunchError as exc:
                raise SideError(side, str(exc)) from None
        yield found


EXIT_INTERRUPTED = 130
# a side's task in a round: (side, round number, its run folder) ->
# (the task file Rally runs, the task's tags)
TaskFor = Callable[[str, int, RunDir], tuple[Path, list[str]]]


class RoundRecord(Protocol):
    """One round as a state file records it (``ab.json``'s, ``rounds.json``'s)."""

    reports: dict[str, str]
    exit_codes: dict[str, int]
    finished: float | None


class RoundsRecord(Protocol):
    """A state file of rounds: its status, rounds, and how it is saved."""

    status: str

    @property
    def rounds(self) -> Sequence[Any]: ...

    def save(self) -> None: ...

    def complete_rounds(self) -> Sequence[Any]: ...


@dataclass(frozen=True)
class Turns:
    """What the engine runs: the sides in their recorded order, how many
    rounds, within which budget, and how each side comes up."""

    folder: Path
    sides: Sequence[str]
    rounds: int
    deployments: Mapping[str, Deployment]  # the sides started here
    sessions: Mapping[str, SideSession] = field(default_factory=dict)  # clouds
    names: Mapping[str, str] = field(default_factory=dict)  # shown in messages
    targets: Mapping[str, str] = field(default_factory=dict)  # a session's URL
    max_seconds: float | None = None  # no new round past this budget
    noun: str = ""  # before a side's name in the progress ("side A")


@dataclass(frozen=True)
class Hooks:
    """What a user of the engine records: a new round in its state, its
    sides' run folders once they are up."""

    new_round: Callable[[int, list[str], float], RoundRecord]
    sides_up: Callable[[Mapping[str, Side], float], None]


def run_turns(
    plan: Turns,
    state: RoundsRecord,
    hooks: Hooks,
    task_for: TaskFor,
    echo: Echo,
    clock: Callable[[], float] = time.time,
) -> list[int]:
    """Every round after the state's complete ones; the tasks' exit codes
    (:data:`EXIT_INTERRUPTED` among them after a Ctrl-C or SIGTERM, whose
    complete rounds are kept). The state's status ends :data:`DONE`,
    :data:`INTERRUPTED` or :data:`FAILED` (the error raised again)."""
    state.status = RUNNING
    state.save()
    codes: list[int] = []
    try:
        with open_sides(
            plan.folder,
            plan.sides,
            plan.deployments,
            plan.sessions,
            echo,
            names=plan.names,
            targets=plan.targets,
        ) as sides:
            hooks.sides_up(sides, clock())
            state.save()
            first = len(state.complete_rounds()) + 1
            mode = _Rounds(plan, state, hooks, task_for, echo, clock, codes, first)
            mode.started = clock()
            if not take_turns(mode, sides, first):
                raise KeyboardInterrupt
        state.status = DONE
    except KeyboardInterrupt:
        state.status = INTERRUPTED
        echo(f"interrupted: {len(state.complete_rounds())} complete rounds kept")
        codes.append(EXIT_INTERRUPTED)
    except BaseException:
        state.status = FAILED
        raise
    finally:
        state.save()
    return codes


At = TypeVar("At", contravariant=True)  # what a side's step is given
T = TypeVar("T")


class Mode(Protocol[At]):
    """What is taken in turns (:func:`take_turns`): a turn's sides, a side's
    step (given the side: its Keystone up, or what it runs), and what a
    user records around a turn."""

    def sides_of(self, turn: int) -> Sequence[str]:
        """The sides with a step in ``turn`` (none: the turns are over)."""
        ...

    def begin(self, turn: int, order: Sequence[str]) -> None:
        """Before the turn's first step, its sides in their order."""
        ...

    def step(self, turn: int, side: str, at: At) -> bool:
        """One side's step; False when Ctrl-C or SIGTERM cut it."""
        ...

    def end(self, turn: int) -> None:
        """After the turn's last step."""
        ...


def take_turns(mode: Mode[T], sides: Mapping[str, T], first: int = 1) -> bool:
    """Turn after turn from ``first``: each side of ``mode.sides_of`` that
    is in ``sides`` (up, or what it runs) takes its step, in the
    counterbalanced order of :func:`balanced_order`; True when a turn has
    no side left, False when a step was cut (Ctrl-C or SIGTERM)."""
    turn = first
    while names := [side for side in mode.sides_of(turn) if side in sides]:
        order = balanced_order(turn, names)
        mode.begin(turn, order)
        for side in order:
            if not mode.step(turn, side, sides[side]):
                return False
        mode.end(turn)
        turn += 1
    return True


@dataclass
class _Rounds:
    """The rounds as a :class:`Mode`: every side in every round up to the
    plan's count, within its budget; each task recorded in the state (its
    progress with the time left)."""

    plan: Turns
    state: RoundsRecord
    hooks: Hooks
    task_for: TaskFor
    echo: Echo
    clock: Callable[[], float]
    codes: list[int]
    first: int = 1
    started: float = 0.0
    done: int = 0
    entry: RoundRecord | None = None

    def sides_of(self, turn: int) -> Sequence[str]:
        if turn > self.plan.rounds:
            return []
        if not _budget_left(self.plan, self.elapsed(), turn - self.first):
            self.echo(f"time budget reached after {turn - 1} rounds")
            return []
        return self.plan.sides

    def begin(self, turn: int, order: Sequence[str]) -> None:
        self.entry = self.hooks.new_round(turn, list(order), self.clock())

    def step(self, turn: int, side: str, at: Side) -> bool:
        assert self.entry is not None
        plan = self.plan
        shown = " ".join(filter(None, (plan.noun, plan.names.get(side, side))))
        self.echo(self.progress(f"round {turn}/{plan.rounds}: {shown}"))
        self.done += 1
        run, runner = at
        task, tags = self.task_for(side, turn, run)
        outcome = runner.start_task(task, tags=tags)
        self.entry.exit_codes[side] = outcome.exit_code
        self.codes.append(outcome.exit_code)
        if outcome.report is not None and not outcome.interrupted:
            self.entry.reports[side] = str(outcome.report)
        self.state.save()
        return not outcome.interrupted

    def end(self, turn: int) -> None:
        assert self.entry is not None
        self.entry.finished = self.clock()
        self.state.save()

    def elapsed(self) -> float:
        return self.clock() - self.started

    def progress(self, where: str) -> str:
        """``round 2/3: apache (elapsed 4m12s, about 4m left)``: the time
        left by the mean of the tasks done so far."""
        elapsed = self.elapsed()
        text = f"{where} (elapsed {duration_text(elapsed)}"
        if self.done:
            steps = (self.plan.rounds - self.first + 1) * len(self.plan.sides)
            left = elapsed / self.done * (steps - self.done)
            text += f", about {duration_text(left)} left"
        return text + ")"


def _budget_left(plan: Turns, elapsed: float, rounds_done: int) -> bool:
    """Whether another round fits in the budget, by the mean round so far."""
    if plan.max_seconds is None or not rounds_done:
        return True
    return elapsed + elapsed / rounds_done <= plan.max_seconds
