"""Rounds taken in turns: several deployments up at once, each measured in
every round, in a counterbalanced order.

This machine's speed drifts by tens of percent over minutes; a comparison
of two deployments measured one after the other compares two machine
states. Measured in rounds taken in turns, each round holds every side at
nearly the same machine state, and over the rounds every side holds every
position in the order equally often (:func:`balanced_order`), so a drift
during the rounds falls on all sides alike.

This is the one rounds engine: :func:`run_turns` brings every side up once
(:func:`open_sides`), runs each round's task on each side in the order of
:func:`balanced_order`, saves the state file after every task, stops
starting rounds past a time budget, says the time left as it goes, and
keeps the complete rounds on Ctrl-C or SIGTERM. The A/B (:mod:`.ab`, two
sides, ``ab.json``) and the studies and releases (:mod:`.study_rounds`, a
side per config, ``rounds.json``) are its two users: each gives it a
:class:`Turns` plan, its state (:class:`RoundsRecord`) and what differs,
the task a side runs in a round (:data:`TaskFor`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

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
            started = clock()
            hooks.sides_up(sides, started)
            state.save()
            _turns(plan, state, hooks, sides, task_for, echo, clock, codes)
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


@dataclass
class _Clock:
    """The rounds' progress: when they began, how many tasks of how many."""

    clock: Callable[[], float]
    started: float
    steps: int
    done: int = 0

    def elapsed(self) -> float:
        return self.clock() - self.started


def _turns(
    plan: Turns,
    state: RoundsRecord,
    hooks: Hooks,
    sides: Mapping[str, Side],
    task_for: TaskFor,
    echo: Echo,
    clock: Callable[[], float],
    codes: list[int],
) -> None:
    """Every round not done yet (within the budget), each side in its turn."""
    first = len(state.complete_rounds()) + 1
    progress = _Clock(clock, clock(), (plan.rounds - first + 1) * len(plan.sides))
    for round_no in range(first, plan.rounds + 1):
        if not _budget_left(plan, progress.elapsed(), round_no - first):
            echo(f"time budget reached after {round_no - 1} rounds")
            break
        order = balanced_order(round_no, plan.sides)
        entry = hooks.new_round(round_no, order, clock())
        for side in order:
            shown = " ".join(filter(None, (plan.noun, plan.names.get(side, side))))
            echo(_progress(f"round {round_no}/{plan.rounds}: {shown}", progress))
            progress.done += 1
            run, runner = sides[side]
            task, tags = task_for(side, round_no, run)
            outcome = runner.start_task(task, tags=tags)
            entry.exit_codes[side] = outcome.exit_code
            codes.append(outcome.exit_code)
            if outcome.report is not None and not outcome.interrupted:
                entry.reports[side] = str(outcome.report)
            state.save()
            if outcome.interrupted:
                raise KeyboardInterrupt
        entry.finished = clock()
        state.save()


def _budget_left(plan: Turns, elapsed: float, rounds_done: int) -> bool:
    """Whether another round fits in the budget, by the mean round so far."""
    if plan.max_seconds is None or not rounds_done:
        return True
    return elapsed + elapsed / rounds_done <= plan.max_seconds


def _progress(where: str, progress: _Clock) -> str:
    """``round 2/3: apache (elapsed 4m12s, about 4m left)``: the time left
    by the mean of the tasks done so far."""
    elapsed = progress.elapsed()
    text = f"{where} (elapsed {duration_text(elapsed)}"
    if progress.done:
        left = elapsed / progress.done * (progress.steps - progress.done)
        text += f", about {duration_text(left)} left"
    return text + ")"
