"""Pages built from the rounds a folder recorded: a study's, the releases'.

``study SEED --rounds`` and ``releases``
(:mod:`rally_keystone_perf.cli.study_commands`,
:mod:`rally_keystone_perf.cli.release_commands`) call these once their
rounds end, with each complete round's reports
(:meth:`rally_keystone_perf.layout.rounds_state.RoundsState.reports`); the
golden tests call them on folders recorded in ``tests/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rally_keystone_perf.report.figures import releases as release_figures
from rally_keystone_perf.report.figures import study as study_figures
from rally_keystone_perf.report.figures import study_rounds
from rally_keystone_perf.report.figures.releases import ReleasesPage
from rally_keystone_perf.report.figures.study_page import StudyPage
from rally_keystone_perf.report.readers.instructions import InstructionCounts
from rally_keystone_perf.studies.model import Study

if TYPE_CHECKING:  # pragma: no cover (a type only: report/ runs nothing of run/)
    from rally_keystone_perf.run.releases import Failure

Reports = Sequence[Mapping[str, Path]]  # each complete round's report by label


def _partial(done: int, asked: int) -> str:
    return "" if done >= asked else f" (partial: {done} of {asked})"


def study_in_rounds(
    study: Study,
    size: str,
    levels: Sequence[int],
    reports: Reports,
    asked: int,
    share: str = "",
) -> StudyPage:
    """A study's page from its rounds: each config's mean of its rounds, each
    ratio's interval over the rounds. ``asked``: the rounds asked for (fewer
    done: the page says partial); ``share``: how much of a task file's load
    each round runs, said after the order."""
    per_round = study_rounds.measured_rounds(reports)
    done = len(per_round)
    return StudyPage(
        study,
        size,
        study_figures.study_rows(study, study_rounds.combined(per_round), levels),
        study_rounds.ratio_rows(study, per_round, levels),
        measured_in=f"{done} rounds{_partial(done, asked)} taken in turns, every "
        f"config up at once, the configs' order counterbalanced{share}; a row is "
        "the mean of its rounds",
    )


def releases(
    size: str,
    mode: str,
    versions: Sequence[str],
    measured: Sequence[str],
    reports: Reports,
    asked: int,
    failures: Sequence[Failure] = (),
    libraries: str = "",
    counts: InstructionCounts | None = None,
) -> ReleasesPage:
    """The releases' page from their rounds: each release's figures, each
    release against the one before it. ``versions``: every release asked
    for; ``measured``: those up for the rounds; ``failures``: those left
    out and why; ``libraries``: which libraries each release ran with;
    ``counts``: the releases' instruction counts, when they were counted."""
    per_round = study_rounds.measured_rounds(reports)
    level = release_figures.level_of(per_round)
    done = len(per_round)
    return ReleasesPage(
        f"Keystone releases ({size}, {mode}, concurrency {level}): token "
        "create, token validate, project list",
        versions,
        release_figures.release_rows(measured, study_rounds.combined(per_round), level),
        release_figures.pair_rows(measured, per_round),
        failures,
        (
            f"ours: {done} rounds{_partial(done, asked)} taken in turns, every "
            "release up at once, their order counterbalanced; a row is the mean "
            "of its rounds",
            f"libraries: {libraries}",
        ),
        release_figures.release_counts(
            [v for v in versions if counts and v in counts.sides], counts
        ),
    )
