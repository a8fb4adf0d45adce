"""Rounds taken in turns: several deployments up at once, each measured in
every round, in a counterbalanced order.

This machine's speed drifts by tens of percent over minutes; a comparison
of two deployments measured one after the other compares two machine
states. Measured in rounds taken in turns, each round holds every side at
nearly the same machine state, and over the rounds every side holds every
position in the order equally often (:func:`balanced_order`), so a drift
during the rounds falls on all sides alike. The A/B (:mod:`.ab`, two sides)
and the studies (:mod:`.study_rounds`, a side per deployment the seed
compared) share the order and the way the sides are brought up
(:func:`open_sides`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from rally_keystone_perf.deploy.options import Deployment, LaunchError
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import rally_runner, session

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
