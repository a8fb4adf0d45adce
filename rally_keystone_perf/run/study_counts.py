"""Instruction counts beside a study's ratios, where a count can compare.

A study's ratio compares two of its configs by time (rounds taken in turns,
or visits A-B-A). Where the two differ only by settings whose work stays
inside Keystone's process (:data:`.instructions.SETTINGS`: token provider,
password hash rounds, cache disabled or request-local, the keystone.conf
template; seed 001's fernet vs JWS tokens), both are counted after the
timed part, as ``ab --instructions`` counts a side: each config's
workload of the ratio's action, in one process under callgrind, with SQL
statements beside (:func:`.instructions.count_each`), into
``<study dir>/instructions.json``. The page prints the instruction ratio
beside the time ratio
(:mod:`rally_keystone_perf.report.figures.study_counts`).

A ratio whose configs differ by what lies outside the process (mode,
processes, memcached, LDAP, the database server, nodes) or whose action no
count replays is not counted, with the reason (:func:`plan_counts`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rally_keystone_perf.deploy.instructions import recipes, site
from rally_keystone_perf.deploy.options import Deployment, LaunchError
from rally_keystone_perf.run import instructions
from rally_keystone_perf.studies.model import Ratio, Study


@dataclass(frozen=True)
class StudyCountPlan:
    """What a study's counts run, and the ratios they leave out."""

    deployments: dict[str, Deployment]  # the configs counted, in study order
    workloads: dict[str, list[dict[str, Any]]]  # config -> its workloads counted
    not_counted: dict[str, str]  # a ratio's name -> why it is not counted


def _why_not(
    ratio: Ratio,
    pair: Mapping[str, Deployment],
    workloads: Mapping[str, list[dict[str, Any]]],
) -> str | None:
    """Why the ratio's two configs cannot be counted; None: they can."""
    names = instructions.differing_options(pair)
    if names:
        return (
            f"the configs differ by {names}, whose work lies outside Keystone's process"
        )
    for deployment in pair.values():
        try:
            site.count_options(deployment.options)
        except LaunchError as exc:
            return str(exc)
    scenario = ratio.counted_scenario
    if scenario is None:
        return "a ratio of the tasks' totals is not counted (an action's is)"
    for label in pair:
        if all(w["name"] != scenario for w in workloads[label]):
            return f"{label} runs no {scenario}"
    try:
        recipes.recipe(scenario)
    except recipes.RecipeError as exc:
        return str(exc)
    return None


def plan_counts(
    study: Study,
    deployments: Mapping[str, Deployment],
    workloads: Mapping[str, list[dict[str, Any]]],
) -> StudyCountPlan:
    """The configs to count (those of a countable ratio, each with the
    workloads of its countable ratios) and why each other ratio of the
    configs measured is not counted."""
    counted: dict[str, list[dict[str, Any]]] = {}
    not_counted = {}
    for ratio in study.ratios:
        if ratio.faster not in deployments or ratio.slower not in deployments:
            continue
        pair = {label: deployments[label] for label in (ratio.faster, ratio.slower)}
        why = _why_not(ratio, pair, workloads)
        if why:
            not_counted[ratio.name] = why
            continue
        for label in pair:
            scenario = ratio.counted_scenario
            mine = counted.setdefault(label, [])
            if all(m["name"] != scenario for m in mine):  # its first such workload
                mine.append(next(w for w in workloads[label] if w["name"] == scenario))
    order = [label for label in deployments if label in counted]
    return StudyCountPlan(
        {label: deployments[label] for label in order},
        {label: counted[label] for label in order},
        not_counted,
    )
