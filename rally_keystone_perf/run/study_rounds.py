"""``study SEED`` in rounds taken in turns: every config up at once.

A study compares deployments (its configs); measured one after the other,
as a matrix each, their ratios compared machine states up to a quarter of
an hour apart. Here every config's Keystone is started once, side by side
(each in ``<study dir>/<config>/``, on its own port), and each round runs
every config's task once (its levels as one task:
:mod:`rally_keystone_perf.tasks.rounds`), the configs in the
counterbalanced order of
:func:`rally_keystone_perf.run.rounds.balanced_order`. A ratio is then
taken per round and the rounds give its interval
(:mod:`rally_keystone_perf.report.figures.study_rounds`).

``rounds.json`` records the configs, each round's order, reports and exit
codes as they end. A Ctrl-C or SIGTERM aborts the running task and stops
every config, keeping the complete rounds; the same command again resumes
after the last complete round (on Keystones started anew: a round is a
sample of its own either way).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.options import Deployment, LaunchOptions
from rally_keystone_perf.layout.rounds_state import RoundsState
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.layout.state_files import RUNNING, Round
from rally_keystone_perf.run import rounds
from rally_keystone_perf.run.matrix import MatrixError, shared_options
from rally_keystone_perf.tasks import rounds as round_tasks
from rally_keystone_perf.tasks.model import TaskFile

EXIT_INTERRUPTED = rounds.EXIT_INTERRUPTED
ROUND_TASKS = "round-tasks"  # in a config's run folder
Echo = Callable[[str], None]


def open_state(
    folder: Path,
    configs: Mapping[str, dict[str, Any]],
    scale: float,
    planned: int,
    restart: bool,
) -> RoundsState:
    """The folder's rounds to resume (the complete ones), or a new state.

    :raises MatrixError: the folder holds rounds of other configs, options,
        task files or scale (``--restart`` or another ``--study-dir``).
    """
    fresh = RoundsState(
        folder, {k: dict(v) for k, v in configs.items()}, scale, planned
    )
    if restart or not fresh.path.exists():
        return fresh
    try:
        old = RoundsState.load(folder)
    except ValueError as exc:
        raise MatrixError(f"{exc}; use another --study-dir or --restart") from None
    wanted = {k: (v["options"], v["tasks"]) for k, v in configs.items()}
    had = {k: (v.get("options"), v.get("tasks")) for k, v in old.configs.items()}
    if wanted != had or old.scale != scale:
        raise MatrixError(
            f"{folder} holds rounds of other configs, options or task files; "
            "use another --study-dir, or --restart to start it over"
        )
    old.rounds = old.complete_rounds()
    old.rounds_planned = planned
    old.status = RUNNING
    return old


@dataclass(frozen=True)
class RoundsPlan:
    """What to run: each config's deployment and task files, how many rounds."""

    folder: Path
    seed: str
    deployments: Mapping[str, Deployment]  # in the configs' order
    tasks: Mapping[str, Sequence[TaskFile]]  # config -> its levels' files
    rounds: int
    scale: float = 1.0

    @property
    def configs(self) -> list[str]:
        return list(self.deployments)


def run_rounds(
    plan: RoundsPlan,
    state: RoundsState,
    echo: Echo,
    clock: Callable[[], float] = time.time,
) -> list[int]:
    """Run the rounds after the complete ones (:func:`.rounds.run_turns`);
    their exit codes (130 among them after a Ctrl-C or SIGTERM, whose
    complete rounds are kept)."""
    done = len(state.complete_rounds())
    if done >= plan.rounds:
        echo(f"all {plan.rounds} rounds are done (recorded in {state.path})")
        return []
    if done:
        echo(f"resuming after round {done} of {plan.rounds} ({state.path})")

    def new_round(round_no: int, order: list[str], started: float) -> Round:
        entry = Round(round_no, order, started=started)
        state.rounds.append(entry)
        return entry

    def sides_up(sides: Mapping[str, rounds.Side], started: float) -> None:
        for label, (run, _) in sides.items():
            state.configs[label].setdefault("runs", []).append(str(run.root))

    def task(label: str, round_no: int, run: RunDir) -> tuple[Path, list[str]]:
        written = round_tasks.write_round_task(
            plan.tasks[label],
            run.root / ROUND_TASKS,
            f"study-{plan.seed}-{label}-round-{round_no}",
            plan.scale,
        )
        return written, [f"study:{plan.seed}", f"config:{label}", f"round:{round_no}"]

    turns = rounds.Turns(plan.folder, plan.configs, plan.rounds, plan.deployments)
    hooks = rounds.Hooks(new_round, sides_up)
    return rounds.run_turns(turns, state, hooks, task, echo, clock)


def recorded_options(options: LaunchOptions) -> dict[str, Any]:
    """What ``rounds.json`` records of a config's launch options (a resumed
    study must run the same): the matrix's shared ones, the mode and the
    Keystone build."""
    return {
        **shared_options(options),
        "mode": options.mode,
        "keystone_build": options.keystone_build,
        "build_deps": options.build_deps,
    }


def recorded_tasks(tasks: Sequence[TaskFile]) -> list[str]:
    """What ``rounds.json`` records of a config's task files: their names."""
    return [task.path.name for task in tasks]
