"""``study SEED --instructions``: the ratios by instruction count too.

Before anything starts, :func:`prepare` finds the ratios whose two configs
a count can compare (:func:`rally_keystone_perf.run.study_counts.plan_counts`:
they differ only by what stays inside Keystone's process, seed 001's fernet
vs JWS); counting is on by default when there is one and valgrind and a C
compiler are installed, ``--instructions`` requires it, ``--no-instructions``
skips it. After the timed part, :func:`count_configs` counts those configs'
workloads into ``<study dir>/instructions.json`` (resumed like the rest)
and :func:`page_counts` gives the page its counted ratios.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rally_keystone_perf.cli.common import EXIT_ERROR, EXIT_INTERRUPTED, echo
from rally_keystone_perf.cli.study_capacity import OptionsFor
from rally_keystone_perf.deploy.instructions import count, markers
from rally_keystone_perf.deploy.options import LaunchError, resolve
from rally_keystone_perf.report.figures import study_counts as counted_ratios
from rally_keystone_perf.report.readers import instructions as instruction_counts
from rally_keystone_perf.run import instructions, study_counts
from rally_keystone_perf.studies.model import Study
from rally_keystone_perf.tasks.model import TaskFile


def prepare(
    asked: bool | None,
    study: Study,
    tasks: Mapping[str, Sequence[TaskFile]],
    options_for: OptionsFor,
) -> study_counts.StudyCountPlan | None:
    """What the study counts (``tasks``: each config's task files); None
    when nothing: ``--no-instructions``, no ratio a count can compare, or
    (unless ``--instructions`` asked) no valgrind or C compiler.

    :raises LaunchError: ``--instructions`` and nothing can be counted.
    """
    if asked is False:
        return None
    deployments, workloads = {}, {}
    for label, files in tasks.items():
        if files:
            deployments[label] = resolve(options_for(study.config(label), files))
            workloads[label] = [w for task in files for w in task.workloads()]
    plan = study_counts.plan_counts(study, deployments, workloads)
    try:
        if not plan.deployments:
            why = "; ".join(f"{k}: {v}" for k, v in plan.not_counted.items())
            raise LaunchError(
                f"no ratio of study {study.seed} compares configs a count can "
                f"compare ({why or 'it has no ratio'})"
            )
        count.valgrind()
        markers.compiler()
    except LaunchError as exc:
        if asked:
            raise LaunchError(f"--instructions: {exc}") from None
        if plan.deployments:
            echo(f"instruction counts skipped: {exc} (--no-instructions silences this)")
        return None
    counted = ", ".join(plan.deployments)
    echo(f"instruction counts after the timed part: {counted}")
    return plan


def count_configs(plan: study_counts.StudyCountPlan, folder: Path) -> int:
    """Count the planned configs; the exit code (1: a config's count failed,
    named on the page; 130: interrupted, the counts made kept)."""
    try:
        found = instructions.count_each(
            folder, plan.deployments, plan.workloads, echo, count.CountPlan()
        )
    except KeyboardInterrupt:
        echo("instruction counts interrupted; the rounds and counts made are kept")
        return EXIT_INTERRUPTED
    return EXIT_ERROR if found["failed"] else 0


def page_counts(
    study: Study, plan: study_counts.StudyCountPlan | None, folder: Path
) -> counted_ratios.StudyCounts | None:
    """The page's counted ratios (None: not counted)."""
    if plan is None:
        return None
    found = instruction_counts.load(folder)
    return counted_ratios.study_counts(study, found, plan.not_counted)
