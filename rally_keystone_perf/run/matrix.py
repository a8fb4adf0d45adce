"""The matrix: bundled task files run against each deployment mode in turn.

A cell is one mode and one task file (``tasks/<mode>/<name>-<size>.json``).
Each mode's Keystone is started once for all its cells. What each cell gave
is recorded in ``<matrix dir>/matrix.json`` after every cell, so a run that
was interrupted or failed resumes with the cells not yet done; the reports
stay in the modes' run folders under ``<matrix dir>/runs/``.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy import modes, preflight
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions, resolve
from rally_keystone_perf.layout import state_files
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import engines, rally_runner, session
from rally_keystone_perf.tasks import generate
from rally_keystone_perf.tasks.model import TaskFile

STATE_FILE = "matrix.json"
STATE_VERSION = 1
DONE, FAILED, INTERRUPTED = "done", "failed", "interrupted"
# launch options that must be the same for every cell of one matrix
SHARED_OPTIONS = (
    "profile",
    "processes",
    "threads",
    "listen_backlog",
    "cache",
    "db",
    "password_hash_rounds",
    "token_expiration",
    "token_provider",
    "identity",
    "lb_balance",
    "node_cpus",
    "db_cpus",
)
# what a state file written before an option existed ran with
UNRECORDED_OPTIONS = {
    "token_provider": "fernet",
    "identity": "sql",
    "lb_balance": "roundrobin",
    "node_cpus": None,
    "db_cpus": None,
}

Echo = Callable[[str], None]
# a block's run and Rally: a local Keystone's, or a cloud's (own_cloud.cloud_run)
Sessions = Callable[
    [tuple[str, int]], AbstractContextManager[tuple[RunDir, rally_runner.RallyRunner]]
]


class MatrixError(Exception):
    """The matrix cannot be planned or resumed; the message says why."""


@dataclass(frozen=True)
class Cell:
    """One mode, one node count (``matrix --nodes``) and one task file."""

    mode: str
    task: Path
    nodes: int = 1

    @property
    def key(self) -> str:
        """``<mode>/<task file name>`` (``<mode>/<N>-nodes/<task file name>``
        for a cluster): the cell's name in the state file."""
        if self.nodes == 1:
            return f"{self.mode}/{self.task.name}"
        return f"{self.mode}/{self.nodes}-nodes/{self.task.name}"

    @property
    def deployment(self) -> tuple[str, int]:
        """What one Keystone serves: the cells of a mode and node count."""
        return self.mode, self.nodes


def available_modes(options: LaunchOptions) -> tuple[list[str], list[str]]:
    """Modes whose programs are installed, and why the others are not."""
    ready, missing = [], []
    for name in sorted(modes.KEYSTONE_MODES):
        try:
            preflight.check_requirements(
                preflight.requirements(resolve(dataclasses.replace(options, mode=name)))
            )
        except LaunchError as exc:
            missing.append(f"{name}: {exc}")
        else:
            ready.append(name)
    return ready, missing


def plan(
    mode_names: Sequence[str],
    pattern: str,
    size: str,
    tasks_dir: Path,
    nodes: Sequence[int] = (1,),
) -> list[Cell]:
    """The cells: for each mode and node count, the mode's task files
    matching ``pattern`` and ``size``.

    ``pattern`` is a glob on the file name without the size and ``.json``
    (``create-token-c*``, ``list-projects-c1?0``, ``*-serial``).
    """
    if size not in generate.SIZES:
        choices = ", ".join(generate.SIZES)
        raise MatrixError(f"unknown size {size!r} (choose from {choices})")
    cells = []
    for mode in mode_names:
        folder = tasks_dir / mode
        files = sorted(folder.glob(f"{pattern}-{size}.json"), key=_natural)
        if not files:
            raise MatrixError(
                f"no task file matches {folder}/{pattern}-{size}.json "
                "(list them with: ls tasks/<mode>/)"
            )
        cells += [Cell(mode, file, count) for count in nodes for file in files]
    return cells


def _natural(path: Path) -> tuple:
    """Sort ``c4`` before ``c16``: digits compare as numbers."""
    parts = itertools.groupby(path.name, str.isdigit)
    return tuple(
        (0, int("".join(g))) if digit else (1, "".join(g)) for digit, g in parts
    )


class MatrixState:
    """``matrix.json``: the shared launch options and every cell's outcome."""

    def __init__(self, folder: Path, options: dict[str, Any]) -> None:
        self.folder = folder
        self.path = folder / STATE_FILE
        self.options = options
        self.cells: dict[str, dict[str, Any]] = {}

    @classmethod
    def open(cls, folder: Path, options: dict[str, Any], restart: bool) -> MatrixState:
        """Load the folder's state (or start one); refuse other launch options."""
        state = cls(folder, options)
        if restart or not state.path.exists():
            return state
        try:
            saved = json.loads(state.path.read_text(encoding="utf-8"))
            cells, old = saved["cells"], saved["options"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise MatrixError(
                f"{state.path}: not a matrix state file ({exc}); "
                "use another --matrix-dir or --restart"
            ) from None
        old = {**UNRECORDED_OPTIONS, **old}
        changed = sorted(k for k in options if old.get(k) != options[k])
        if changed:
            detail = ", ".join(f"{k} {old.get(k)!r} -> {options[k]!r}" for k in changed)
            raise MatrixError(
                f"{folder} holds a matrix run with other settings ({detail}); "
                "use another --matrix-dir, or --restart to start it over"
            )
        state.cells = cells
        return state

    def done(self, cell: Cell) -> bool:
        """True when the cell ran to its end and its report is still there."""
        entry = self.cells.get(cell.key, {})
        report = entry.get("report")
        return (
            entry.get("status") == DONE
            and isinstance(report, str)
            and Path(report).is_file()
        )

    def record(self, cell: Cell, **entry: Any) -> None:
        """Store a cell's outcome and save at once (atomically)."""
        self.cells[cell.key] = {
            "mode": cell.mode,
            "nodes": cell.nodes,
            "task": str(cell.task),
            **entry,
        }
        self.save()

    def save(self) -> None:
        document = {"version": STATE_VERSION, "options": self.options}
        document["cells"] = self.cells
        state_files.write_json(self.path, document)

    def partial(self, cells: Sequence[Cell]) -> list[tuple[Cell, Path]]:
        """Interrupted cells that left a (partial) report, in plan order."""
        found = []
        for cell in cells:
            entry = self.cells.get(cell.key, {})
            report = entry.get("report")
            interrupted = entry.get("status") == INTERRUPTED
            if interrupted and isinstance(report, str) and Path(report).is_file():
                found.append((cell, Path(report)))
        return found

    def reports(self, cells: Sequence[Cell]) -> list[Path]:
        """The reports of the done cells among ``cells``, in plan order."""
        return [Path(self.cells[c.key]["report"]) for c in cells if self.done(c)]


def shared_options(options: LaunchOptions) -> dict[str, Any]:
    """The launch options recorded in (and compared against) the state file."""
    values = dataclasses.asdict(options)
    return {key: values[key] for key in SHARED_OPTIONS}


class Progress:
    """``[3/12] apache create-token-c16-quick.json (elapsed 4m12s, ~8m left)``."""

    def __init__(self, total: int, already: int, clock: Callable[[], float]) -> None:
        self.total = total
        self.finished = already
        self.ran = 0
        self.clock = clock
        self.started = clock()

    def cell_done(self) -> None:
        self.finished += 1
        self.ran += 1

    def line(self, cell: Cell) -> str:
        elapsed = self.clock() - self.started
        where = cell.mode if cell.nodes == 1 else f"{cell.mode} x{cell.nodes}"
        text = f"[{self.finished + 1}/{self.total}] {where} {cell.task.name}"
        text += f" (elapsed {duration_text(elapsed)}"
        if self.ran:
            left = elapsed / self.ran * (self.total - self.finished)
            text += f", about {duration_text(left)} left"
        return text + ")"


def duration_text(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


_RALLY = engines.RallyEngine()


@dataclass(frozen=True)
class _Load:
    """The matrix's engine and the task files the command parsed."""

    engine: engines.Engine
    tasks: Mapping[Path, TaskFile]

    def task_to_run(self, task: Path, run: RunDir) -> Path:
        """The file Rally runs for the cell's ``task`` in ``run``."""
        parsed = self.tasks.get(task) or TaskFile.load(task)
        return self.engine.task_to_run(parsed, run)


def run_matrix(
    cells: Sequence[Cell],
    state: MatrixState,
    options_for: Callable[[str, int], LaunchOptions],
    echo: Echo,
    clock: Callable[[], float] = time.monotonic,
    engine: engines.Engine = _RALLY,
    sessions: Sessions | None = None,
    tasks: Mapping[Path, TaskFile] | None = None,
) -> list[int]:
    """Run the cells not done yet, mode by mode; return their exit codes.

    ``engine`` sends the load (:mod:`.engines`), of ``tasks`` (the task
    files as the command parsed them; default: each cell's file read
    again). ``sessions`` opens each block's run (default: a local Keystone
    of ``options_for``'s launch options).

    Each mode's Keystone is started once (in ``<matrix dir>/runs``) and
    stopped after its cells, also on errors and Ctrl-C. A mode that cannot
    start (or whose Rally cannot be prepared) has its cells recorded as
    failed, with the reason, and the matrix goes on (code 1). A Ctrl-C
    aborts the running task (its partial report is kept), records the cell
    as interrupted and ends the matrix with 130 among the codes.
    """
    pending = [c for c in cells if not state.done(c)]
    progress = Progress(len(cells), len(cells) - len(pending), clock)
    if len(pending) < len(cells):
        echo(
            f"resuming: {len(cells) - len(pending)} of {len(cells)} cells are "
            f"done (recorded in {state.path})"
        )
    codes: list[int] = []
    try:
        for where, group in itertools.groupby(pending, key=lambda c: c.deployment):
            cells_of_mode = list(group)
            mode, nodes = where
            echo(f"== mode {mode}" + (f", {nodes} nodes" if nodes > 1 else ""))
            try:
                if _run_mode(
                    where,
                    cells_of_mode,
                    state,
                    options_for,
                    echo,
                    clock,
                    progress,
                    codes,
                    _Load(engine, tasks or {}),
                    sessions,
                ):
                    return codes  # a task was interrupted
            except (LaunchError, rally_runner.RallyError) as exc:
                # this mode cannot run: record why, go on with the next one
                echo(f"mode {mode} failed: {exc}")
                for cell in cells_of_mode:
                    state.record(cell, status=FAILED, error=str(exc)[:2000])
                codes.append(1)
    except KeyboardInterrupt:
        codes.append(130)
    return codes


def _run_mode(
    where: tuple[str, int],
    cells: Sequence[Cell],
    state: MatrixState,
    options_for: Callable[[str, int], LaunchOptions],
    echo: Echo,
    clock: Callable[[], float],
    progress: Progress,
    codes: list[int],
    load: _Load,
    sessions: Sessions | None = None,
) -> bool:
    """One deployment's cells (a mode, a node count) on one Keystone; True
    when a task was interrupted."""
    mode = where[0]
    if sessions is None:  # a local Keystone of the block's launch options
        deployment = resolve(options_for(*where), echo)
        sessions = lambda _: session.keystone_session(  # noqa: E731
            state.folder / "runs", deployment, echo
        )
    with sessions(where) as (run, runner):
        for cell in cells:
            echo(progress.line(cell))
            started = clock()
            known = set(load.engine.failures(run))
            tags = [f"mode:{mode}", *load.engine.tags()]
            outcome = runner.start_task(load.task_to_run(cell.task, run), tags=tags)
            state.record(
                cell,
                status=_status(outcome),
                exit_code=outcome.exit_code,
                report=str(outcome.report) if outcome.report else None,
                run=str(run.root),
                seconds=round(clock() - started, 1),
            )
            progress.cell_done()
            codes.append(outcome.exit_code)
            for problem in load.engine.failures(run):
                if problem not in known:  # this cell's, not an earlier one's
                    echo(f"error: {load.engine.name} engine: {problem}")
                    codes.append(1)
            if outcome.interrupted:
                return True
    return False


def _status(outcome: Any) -> str:
    """done (0, or 2: ran to the end with a failed SLA), interrupted or failed."""
    if outcome.interrupted:
        return INTERRUPTED
    return DONE if outcome.exit_code in (0, 2) and outcome.report else FAILED
