"""A bisect's steps built, counted and kept; the culprit profiled.

Each step is a build (of one commit, or with one day's libraries:
:mod:`rally_keystone_perf.run.bisect_plan`), counted in one process under
callgrind as ``ab --instructions`` counts (:func:`.count.count_side`):
instructions and SQL statements per request, for each workload of the
task. The search
(:mod:`rally_keystone_perf.run.bisect_search`) picks the steps.

Every step's outcome goes to ``bisect.json`` as soon as it is known
(:mod:`rally_keystone_perf.layout.bisect`): Ctrl-C keeps the steps done and
the same command resumes. Each workload's count is also kept in a cache
folder by commit, settings, count plan and workload, which later bisects
(another range, another task sharing a workload) reuse. A step that does
not build, or whose Keystone does not start, is skipped with the reason.
Each count also profiles the step's Python functions (their calls and own
lines, :mod:`rally_keystone_perf.deploy.instructions.calls`), in the same
batch of replays, so that the page can say where the culprit's cost went.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.builds import prepare, runtime, venvs
from rally_keystone_perf.deploy.instructions import calls, count, site
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions, resolve
from rally_keystone_perf.layout import bisect as layout
from rally_keystone_perf.layout import state_files
from rally_keystone_perf.run import bisect_search as search
from rally_keystone_perf.run.bisect_plan import (
    BisectPlan,
    identity,
    labels,
    step_options,
)

Echo = Callable[[str], None]


def _cache_file(plan: BisectPlan, step_id: str, spec: dict[str, Any]) -> Path | None:
    if plan.cache is None:
        return None
    mine = identity(plan)
    key = {"step": step_id, "spec": spec}
    shared = ("history", "keystone_build", "build_deps", "settings", "plan")
    key.update({k: mine[k] for k in shared})
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    return plan.cache / f"{step_id[:12]}-{digest[:16]}.json"


def _from_cache(plan: BisectPlan, step_id: str) -> dict[str, Any] | None:
    """The step's outcome, when the cache holds every workload's count
    (each kept with its profile and the build's libraries); the profiles
    written back into the bisect's folder."""
    found, profiles, libraries = {}, {}, {}
    specs = count.workload_specs(plan.workloads)
    for label, spec in zip(labels(plan.workloads), specs, strict=True):
        where = _cache_file(plan, step_id, spec)
        if where is None or not where.is_file():
            return None
        kept = json.loads(where.read_text())
        found[label], libraries = kept["count"], kept.get("libraries", {})
        if kept.get("profile") is not None:
            profiles[label] = kept["profile"]
    _write_profiles(plan, step_id, profiles)
    return {"workloads": found, "libraries": libraries}


def _to_cache(
    plan: BisectPlan, step_id: str, outcome: dict[str, Any], profiles: dict[str, Any]
) -> None:
    specs = count.workload_specs(plan.workloads)
    for label, spec in zip(labels(plan.workloads), specs, strict=True):
        where = _cache_file(plan, step_id, spec)
        if where is not None and label in outcome.get("workloads", {}):
            kept = {
                "count": outcome["workloads"][label],
                "libraries": outcome["libraries"],
                "profile": profiles.get(label),
            }
            state_files.write_json(where, kept)


def _write_profiles(plan: BisectPlan, step_id: str, profiles: dict[str, Any]) -> None:
    """``profiles/<step id>.json``: by workload, each Python function's
    calls and own lines per iteration."""
    if profiles:
        state_files.write_json(
            plan.folder / layout.PROFILES / f"{step_id}.json", profiles
        )


def count_step(plan: BisectPlan, index: int, echo: Echo) -> dict[str, Any]:
    """Build and count one step, its Python functions profiled beside; its
    outcome as ``bisect.json`` holds it (skipped, with why, when it does not
    build or its Keystone does not start), with the versions of the
    libraries its build installed."""
    step_id = plan.steps[index].id
    cached = _from_cache(plan, step_id)
    if cached is not None:
        echo(f"{step_id[:12]}: counted by an earlier bisect, kept")
        return cached
    try:
        deployment = prepare.prepare(resolve(step_options(plan, step_id)), echo)
    except LaunchError as exc:
        return {layout.SKIPPED: f"does not build: {_first_line(exc)}"}
    options = site.count_options(deployment.options)
    specs = count.workload_specs(plan.workloads)
    folder = plan.folder / "steps" / step_id[:12]
    try:
        counts = count.count_side(
            folder, options, specs, plan.count_plan, echo, profile=True
        )
        names = labels(plan.workloads)
        profiles = {
            names[n]: calls.per_iteration(path) for n, path in counts.profiles.items()
        }
    except (LaunchError, ValueError) as exc:
        return {layout.SKIPPED: f"not counted: {_first_line(exc)}"}
    outcome: dict[str, Any] = {
        "workloads": {
            names[found.position]: {
                "instructions": found.per_request,
                "spread": round(found.spread, 6),
                "statements": found.statements_per_request,
            }
            for found in counts.workloads
        },
        "libraries": _libraries(options),
    }
    _write_profiles(plan, step_id, profiles)
    _to_cache(plan, step_id, outcome, profiles)
    return outcome


def _libraries(options: LaunchOptions) -> dict[str, str]:
    """What the step's build installed: each distribution's version."""
    build = runtime.build(options)
    return {} if build is None else venvs.installed_versions(build.python)


def _first_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def outcome_of(found: Mapping[str, Any]) -> search.Outcome:
    """What the search reads of a step's outcome."""
    if layout.SKIPPED in found:
        return search.Skip(str(found[layout.SKIPPED]))
    workloads = found.get("workloads", {})
    per_request = {name: float(c["instructions"]) for name, c in workloads.items()}
    reads_writes = {
        name: q for name, c in workloads.items() if (q := layout.queries(c)) is not None
    }
    return search.Cost(per_request, reads_writes)


def start_record(plan: BisectPlan, restart: bool = False) -> dict[str, Any]:
    """``bisect.json`` of the folder to resume, or a new one.

    :raises LaunchError: the folder holds another bisect's record.
    """
    path = plan.folder / layout.BISECT_FILE
    mine = identity(plan)
    if path.is_file() and not restart:
        earlier = json.loads(path.read_text())
        if earlier.get("version") == layout.BISECT_VERSION and (
            earlier.get("identity") == mine
        ):
            return dict(earlier)
        theirs = earlier.get("identity", {})
        differ = sorted(k for k in mine if theirs.get(k) != mine[k])
        raise LaunchError(
            f"{plan.folder} holds another bisect (its {', '.join(differ) or 'format'} "
            "differ): give another --bisect-dir, or --restart to forget it"
        )
    return {
        "version": layout.BISECT_VERSION,
        "history": plan.history,
        "repo": str(plan.repo or plan.options.keystone_build),
        "identity": mine,
        "steps": [dataclasses.asdict(step) for step in plan.steps],
        "workloads": labels(plan.workloads),
        "outcomes": {},
        "order": [],
    }


def step_line(record: Mapping[str, Any], index: int) -> str:
    """One counted step as the progress shows it: commit, subject, each
    workload's instructions and queries per request, ratio to good."""
    step = record["steps"][index]
    found = record["outcomes"][str(index)]
    head = f"  {step['id'][:12]} {step['subject'][:60]}"
    if layout.SKIPPED in found:
        return f"{head}: skipped, {found[layout.SKIPPED]}"
    good = record["outcomes"].get("0", {}).get("workloads", {})
    said = []
    for name, counted in found.get("workloads", {}).items():
        figure = f"{name} {counted['instructions'] / 1e6:.2f}M instructions"
        if (q := layout.queries(counted)) is not None:
            figure += f", {q:g} queries"
        if good.get(name, {}).get("instructions"):
            figure += f", {counted['instructions'] / good[name]['instructions']:.4f}"
            figure += " of good"
        said.append(figure)
    return f"{head}: {'; '.join(said) or 'no workload counted'}"


def run_bisect(plan: BisectPlan, echo: Echo, restart: bool = False) -> dict[str, Any]:
    """Search the plan's history, resuming its folder's record; the record,
    its conclusion in it. Ctrl-C keeps every step counted."""
    record = start_record(plan, restart)
    outcomes = {int(i): outcome_of(o) for i, o in record["outcomes"].items()}

    def measure(index: int) -> search.Outcome:
        step = plan.steps[index]
        echo(f"step {len(record['order']) + 1}: {step.id[:12]} {step.subject[:60]}")
        record["outcomes"][str(index)] = count_step(plan, index, echo)
        record["order"].append(index)
        save(plan.folder, record)
        echo(step_line(record, index))
        return outcome_of(record["outcomes"][str(index)])

    found = search.search(len(plan.steps), measure, outcomes, plan.threshold, plan.most)
    record["conclusion"] = dataclasses.asdict(found)
    save(plan.folder, record)
    return record


def save(folder: Path, record: Mapping[str, Any]) -> None:
    """Write ``bisect.json`` atomically."""
    state_files.write_json(folder / layout.BISECT_FILE, record)
