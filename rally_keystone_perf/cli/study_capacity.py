"""``study SEED --capacity``: a capacity row per config beside the others.

The study's :class:`~rally_keystone_perf.studies.model.CapacitySpec` names
the workload (a task file pattern of the study's size), the SLO and the
search's limits. After the closed-model rows, each config's capacity is
searched (:mod:`rally_keystone_perf.run.capacity_turns`): for a study in
rounds every config is up at once and the searches take their steps in
turns; for a study of clusters (seed 001) one config after the other.
The steps are recorded in ``<study dir>/capacity/capacity.json``; the same
command again replays them and goes on. Each config's whole curve is
written beside it as ``capacity-<config>.md`` and ``.html``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rally_keystone_perf.cli.common import EXIT_INTERRUPTED, EXIT_SLA
from rally_keystone_perf.deploy import preflight
from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.report.figures import capacity_curve, slo, study_capacity
from rally_keystone_perf.report.writers import registry as writers
from rally_keystone_perf.run import (
    capacity_search,
    capacity_steps,
    capacity_turns,
    study_matrix,
)
from rally_keystone_perf.run.matrix import MatrixError
from rally_keystone_perf.studies import registry
from rally_keystone_perf.studies.model import Config, Study
from rally_keystone_perf.tasks import check
from rally_keystone_perf.tasks.model import TaskFile

FOLDER = "capacity"  # in the study's folder
MAX_IN_FLIGHT = 200  # the open-model runner's cap, as capacity's default
OptionsFor = Callable[[Config, Sequence[TaskFile]], LaunchOptions]
Echo = Callable[[str], None]


@dataclass(frozen=True)
class CapacityPlan:
    """What the capacity searches run, checked before any server starts."""

    folder: Path
    objective: slo.Slo
    limits: capacity_search.Limits
    tasks: Mapping[str, TaskFile]  # config -> its capacity task file
    steps: Mapping[str, capacity_steps.StepPlan]  # config -> its steps' workload
    record: dict[str, object]  # capacity.json's plan: a resume must match


def prepare(
    args: argparse.Namespace, study: Study, tasks_dir: Path, folder: Path
) -> CapacityPlan | None:
    """The searches' plan when ``--capacity`` asks for them (None else): the
    SLO parsed, each config's task file loaded and checked.

    :raises MatrixError: the study has no capacity rows, or its task file
        is missing.
    """
    if not args.capacity:
        return None
    spec = study.capacity
    if spec is None:
        having = [s.seed for s in registry.STUDIES.values() if s.capacity]
        raise MatrixError(
            f"study {study.seed} has no capacity rows (--capacity): the "
            f"studies with them are {', '.join(having)}"
        )
    if not study.capacity_configs():
        raise MatrixError(
            f"study {study.seed}: none of the configs chosen has a capacity row "
            f"(those with one: {', '.join(spec.configs)})"
        )
    limits = capacity_search.Limits(
        start=spec.start, precision=spec.precision, repeats=spec.repeats
    )
    tasks, steps = {}, {}
    for config in study.capacity_configs():
        path = study_matrix.capacity_task(study, config, args.size, tasks_dir)
        tasks[config.label] = task = TaskFile.load(path)
        check.validate(task)
        workload = capacity_steps.capacity_workload(task)
        steps[config.label] = capacity_steps.StepPlan(
            workload, spec.step_seconds, MAX_IN_FLIGHT
        )
    record = {
        "slo": spec.slo,
        "limits": asdict(limits),
        "seconds": spec.step_seconds,
        "task": f"{spec.pattern}-{args.size}",
    }
    return CapacityPlan(
        folder / FOLDER, slo.parse_slo(spec.slo), limits, tasks, steps, record
    )


def check_deployments(
    plan: CapacityPlan, study: Study, options_for: OptionsFor
) -> None:
    """Every config's programs there and its task fit for its deployment:
    before any server starts."""
    for label, task in plan.tasks.items():
        deployment = resolve(options_for(study.config(label), [task]))
        preflight.check_requirements(preflight.requirements(deployment))
        check.check_deployment(task, deployment)


def run_capacity(
    plan: CapacityPlan,
    study: Study,
    options_for: OptionsFor,
    echo: Echo,
    restart: bool,
) -> tuple[study_capacity.CapacityPart, list[int]]:
    """Every config's search to its end (the recorded steps replayed); the
    page's capacity part and the exit codes (2: a config met the SLO at no
    rate tried; 130: Ctrl-C or SIGTERM, the steps done kept)."""
    state = capacity_turns.CapacityState.open(plan.folder, plan.record, restart)
    judged: dict[Path, capacity_curve.CurveRow] = {}
    judge = capacity_curve.keeping_judge(plan.objective, judged)
    searches = capacity_turns.resumed(list(plan.tasks), plan.limits, state, judge)
    pending = [label for label, search in searches.items() if not search.done]
    echo(
        f"study {study.seed}: capacity of {len(searches)} configs under "
        f"{plan.objective.text()}; {capacity_search.rule_text(plan.limits)}"
    )
    deployments = {
        label: resolve(options_for(study.config(label), [plan.tasks[label]]), echo)
        for label in pending
    }
    searching = capacity_turns.Searching(searches, plan.steps, judge, state, echo)
    try:
        complete = capacity_turns.search_all(
            searching, plan.folder, deployments, study.in_rounds
        )
    except KeyboardInterrupt:
        complete = False
    part = _part(plan, study, searches, judged)
    codes = [] if complete else [EXIT_INTERRUPTED]
    codes += [EXIT_SLA for row in part.rows if row.sustained is None]
    return part, codes


def _part(
    plan: CapacityPlan,
    study: Study,
    searches: Mapping[str, capacity_turns.Search],
    judged: Mapping[Path, capacity_curve.CurveRow],
) -> study_capacity.CapacityPart:
    """The page's capacity part; each config's curve written beside it."""
    curves = {}
    rule = capacity_search.rule_text(plan.limits)
    for label, search in searches.items():
        if not search.taken:
            continue
        outcome = search.outcome or capacity_search.partial(
            [s.step for s in search.taken], "interrupted: the steps done"
        )
        curves[label] = curve = capacity_curve.capacity_curve(
            capacity_curve.taken_rows(judged, search.taken),
            plan.objective,
            outcome.sustained,
            outcome.above,
            outcome.stopped,
            rule,
        )
        writers.write_files(
            writers.CAPACITY,
            curve,
            {
                "markdown": plan.folder / f"capacity-{label}.md",
                "html": plan.folder / f"capacity-{label}.html",
            },
        )
    rows = study_capacity.capacity_rows(study, curves)
    spec = study.capacity
    assert spec is not None
    return study_capacity.CapacityPart(
        plan.objective.text(),
        spec.unit,
        rows,
        study_capacity.capacity_ratios(study, rows),
        _measured_in(study, plan),
    )


def _measured_in(study: Study, plan: CapacityPlan) -> str:
    seconds = plan.record["seconds"]
    how = (
        "with every config up at once, the searches' steps taken in turns "
        "(the configs' order counterbalanced: A B, B A, ...), so that the "
        "machine's drift falls alike on every config"
        if study.in_rounds
        else "one config after the other (clusters of several node counts "
        "cannot all be up at once): compare the speed probe column"
    )
    return (
        f"{how}; each step {seconds:g} s of open-model load, its second half "
        f"judged; search: {capacity_search.rule_text(plan.limits)}"
    )
