"""``study SEED``: the seed's matrix, one per deployment it compared, A-B-A.

Each of the study's configs (:mod:`rally_keystone_perf.studies`) is a matrix
of its own (:mod:`.matrix`): one Keystone with the config's mode and
options, the study's task files of the chosen size, every cell recorded as
it ends. This is for configs that cannot all be up at once (clusters of
several node counts, seed 001's); the others are measured in rounds taken
in turns (:mod:`.study_rounds`).

The visits are turns of the rounds engine (:class:`Visits`, a
:class:`.rounds.Mode`), a config a turn, in the order A B C ... C B A
(:func:`visit_order`):
every config but the middle one twice (and but those no ratio compares,
once after it: seed 001's jws-ldap), the first visit in
``<study dir>/<config>/``, the second in ``<study dir>/<config>.visit-2/``.
Two neighbours are then measured A-B-A (or A-B ... B-A): the machine's drift
between a config's two visits is printed beside their ratio, and a drift
steady over the study falls alike on both sides of every pair. Running the
same command again resumes with the cells not done; a Ctrl-C ends the study
(130 among the codes).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.run import matrix, rounds
from rally_keystone_perf.studies.model import Config, Study

EXIT_INTERRUPTED = 130
_LEVEL = re.compile(r"-(?:c(\d+)|serial)-(?:quick|full)\.json$")
OptionsFor = Callable[[Config, Sequence[Path]], LaunchOptions]


def level(task: Path) -> int | None:
    """The concurrency level in a bundled task file's name (``-c16-``;
    ``-serial-``: 1)."""
    match = _LEVEL.search(task.name)
    if not match:
        return None
    return int(match.group(1) or 1)


def config_cells(
    study: Study, config: Config, size: str, tasks_dir: Path
) -> list[matrix.Cell]:
    """``config``'s cells: its task files of the study's (or its own)
    patterns, in its mode's folder (or its own), at its node count."""
    patterns = study.patterns_of(config, size)
    if config.task_folder is None:
        return [
            dataclasses.replace(cell, nodes=config.nodes)
            for pattern in patterns
            for cell in matrix.plan([config.mode], pattern, size, tasks_dir)
        ]
    folder = task_folder(config, tasks_dir)
    cells = []
    for pattern in patterns:
        files = sorted(folder.glob(f"{pattern}-{size}.json"))
        if not files:
            raise matrix.MatrixError(
                f"no task file matches {folder}/{pattern}-{size}.json"
            )
        cells += [matrix.Cell(config.mode, file, config.nodes) for file in files]
    return cells


def task_folder(config: Config, tasks_dir: Path) -> Path:
    """Where ``config``'s task files are: its own folder, else its mode's."""
    return tasks_dir / (
        config.mode if config.task_folder is None else config.task_folder
    )


def capacity_task(study: Study, config: Config, size: str, tasks_dir: Path) -> Path:
    """The task file of ``config``'s capacity search: the study's capacity
    pattern in its mode's folder (or its own).

    :raises matrix.MatrixError: the study has no capacity rows, or the
        pattern does not match exactly one file.
    """
    if study.capacity is None:
        raise matrix.MatrixError(f"study {study.seed} has no capacity rows")
    folder = task_folder(config, tasks_dir)
    wanted = f"{study.capacity.pattern}-{size}.json"
    files = sorted(folder.glob(wanted))
    if len(files) != 1:
        raise matrix.MatrixError(
            f"study {study.seed}: {len(files)} task files match {folder}/{wanted}, "
            "its capacity search takes one"
        )
    return files[0]


def study_cells(
    study: Study,
    size: str,
    tasks_dir: Path,
    levels: Sequence[int] | None = None,
) -> dict[str, list[matrix.Cell]]:
    """Each config's cells: its mode's task files of the study's patterns,
    at ``levels`` only when given (else at the study's default levels of
    ``size``, when it names some).

    :raises matrix.MatrixError: a pattern matches no file, or no cell is left.
    """
    levels = levels or study.default_levels.get(size)
    cells: dict[str, list[matrix.Cell]] = {}
    for config in study.configs:
        found = config_cells(study, config, size, tasks_dir)
        cells[config.label] = [
            c for c in found if levels is None or level(c.task) in levels
        ]
    if not any(cells.values()):
        raise matrix.MatrixError(
            f"study {study.seed}: no task file at levels {list(levels or [])} "
            f"(its levels: {', '.join(map(str, study.levels()))})"
        )
    return cells


def _always(options: LaunchOptions) -> Callable[[str, int], LaunchOptions]:
    """The matrix's options for any mode and node count: the config's."""
    return lambda mode, nodes: options


def visit_order(
    labels: Sequence[str], once: Collection[str] = ()
) -> list[tuple[str, int]]:
    """(config, visit) in the order they run: A B C then B A, the last
    config once, in the middle; then the ``once`` configs (in no ratio: no
    drift to measure), visited once after it."""
    twice = [label for label in labels if label not in once]
    single = [label for label in labels if label in once]
    there = [(label, 1) for label in twice + single]
    back = [(label, 2) for label in reversed(twice[:-1])]
    return there + back


def in_no_ratio(study: Study) -> set[str]:
    """The study's configs that no ratio compares: visited once."""
    compared = {label for r in study.ratios for label in (r.faster, r.slower)}
    return {c.label for c in study.configs} - compared


def visit_folder(folder: Path, label: str, visit: int) -> Path:
    """Where a config's visit runs: ``<config>/``, then ``<config>.visit-2/``."""
    return folder / (label if visit == 1 else f"{label}.visit-{visit}")


@dataclass
class StudyRun:
    """What a study run left: each visit's reports by config, the exit codes."""

    folder: Path
    visits: list[dict[str, list[Path]]] = field(default_factory=list)
    codes: list[int] = field(default_factory=list)

    @property
    def interrupted(self) -> bool:
        return EXIT_INTERRUPTED in self.codes

    def add(self, visit: int, label: str, reports: list[Path]) -> None:
        """Record ``label``'s reports of its ``visit`` (1, 2)."""
        while len(self.visits) < visit:
            self.visits.append({})
        self.visits[visit - 1][label] = reports


@dataclass
class Visits:
    """The visits as a :class:`.rounds.Mode`: turn N is the N-th visit of
    ``order``, its one side the config, its step the config's matrix run
    on that visit's state (the cells not done yet)."""

    study: Study
    order: list[tuple[str, int]]  # (config, visit) as visited
    states: list[matrix.MatrixState]  # each visit's, in that order
    options: list[LaunchOptions]  # each visit's config's
    result: StudyRun
    echo: Callable[[str], None]

    def sides_of(self, turn: int) -> Sequence[str]:
        return [self.order[turn - 1][0]] if turn <= len(self.order) else []

    def begin(self, turn: int, order: Sequence[str]) -> None:
        label, visit = self.order[turn - 1]
        self.echo(
            f"== study {self.study.seed}: {label} "
            f"({self.study.config(label).seed_label}), "
            f"visit {visit}, step {turn} of {len(self.order)}"
        )

    def step(self, turn: int, side: str, at: list[matrix.Cell]) -> bool:
        state, options = self.states[turn - 1], self.options[turn - 1]
        codes = matrix.run_matrix(at, state, _always(options), self.echo)
        self.result.codes += codes
        return EXIT_INTERRUPTED not in codes

    def end(self, turn: int) -> None:
        """Nothing: each cell is recorded in its visit's state as it ends."""


def run_study(
    cells: dict[str, list[matrix.Cell]],
    study: Study,
    folder: Path,
    options_for: OptionsFor,
    echo: Callable[[str], None],
    restart: bool = False,
) -> StudyRun:
    """Run every visit's cells not done yet, A B ... B A; stop at a Ctrl-C.
    Every visit's reports so far are in the result, those not reached too."""
    result = StudyRun(folder)
    labels = [c.label for c in study.configs if cells.get(c.label)]
    order = visit_order(labels, in_no_ratio(study))
    options = [
        options_for(study.config(label), [c.task for c in cells[label]])
        for label, _ in order
    ]
    states = [
        matrix.MatrixState.open(
            visit_folder(folder, label, visit), matrix.shared_options(chosen), restart
        )
        for (label, visit), chosen in zip(order, options, strict=True)
    ]
    visits = Visits(study, order, states, options, result, echo)
    rounds.take_turns(visits, {label: cells[label] for label in labels})
    for (label, visit), state in zip(order, states, strict=True):
        result.add(visit, label, state.reports(cells[label]))
    return result
