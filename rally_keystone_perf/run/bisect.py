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
folder by build, settings, count plan and workload
(:mod:`rally_keystone_perf.run.bisect_cache`), which later bisects
(another range, another task sharing a workload) reuse. A step that does
not build, or whose Keystone does not start, is skipped with the reason.
Each count also profiles the step's Python functions (their calls and own
lines, :mod:`rally_keystone_perf.deploy.instructions.calls`), in the same
batch of replays, so that the page can say where the culprit's cost went.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.builds import history, prepare, runtime, venvs
from rally_keystone_perf.deploy.instructions import calls, count, site
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions, resolve
from rally_keystone_perf.layout import bisect as layout
from rally_keystone_perf.layout import state_files
from rally_keystone_perf.run import bisect_cache
from rally_keystone_perf.run import bisect_search as search
from rally_keystone_perf.run.bisect_plan import (
    COMMITS,
    BisectPlan,
    commit_folder,
    identity,
    step_options,
)

Echo = Callable[[str], None]
PBR_VERSION = "PBR_VERSION"  # pbr takes a build's version from it


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
    libraries its build installed. A count of the same build kept in the
    cache is taken from there."""
    step_id = plan.steps[index].id
    try:
        with _commit_source(plan, step_id):
            deployment = prepare.prepare(resolve(step_options(plan, step_id)), echo)
    except LaunchError as exc:
        return {layout.SKIPPED: f"does not build: {_reason(exc)}"}
    options = site.count_options(deployment.options)
    build = _build_key(options)
    kept = bisect_cache.load(plan, build)
    if kept is not None:
        echo(f"{step_id[:12]}: counted by an earlier bisect, kept")
        _write_profiles(plan, step_id, kept.pop("profiles"))
        return kept
    folder = plan.folder / "steps" / step_id[:12]
    try:
        counts = count.count_side(
            folder, options, plan.specs, plan.count_plan, echo, profile=True
        )
    except LaunchError as exc:
        return {layout.SKIPPED: f"not counted: {_reason(exc)}"}
    names = plan.names
    profiles, not_profiled = _profiles(names, counts)
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
        "not_profiled": not_profiled,
    }
    _write_profiles(plan, step_id, profiles)
    bisect_cache.save(plan, build, outcome, profiles)
    return outcome


@contextlib.contextmanager
def _commit_source(plan: BisectPlan, step_id: str) -> Iterator[None]:
    """A commit's files written out to be built (:func:`.history.export`),
    versioned by ``PBR_VERSION`` from the repository's tags
    (:func:`.history.version_of`): the folder's repository of one commit
    has no tags for pbr to find. Days build a release: nothing to do."""
    if plan.history != COMMITS or plan.repo is None:
        yield
        return
    history.export(plan.repo, step_id, commit_folder(plan, step_id).parent)
    before = os.environ.get(PBR_VERSION)
    os.environ[PBR_VERSION] = history.version_of(plan.repo, step_id)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(PBR_VERSION, None)
        else:
            os.environ[PBR_VERSION] = before


def _build_key(options: LaunchOptions) -> str:
    """The build's own key (its resolution's); the spec's text when the
    options name no installed build."""
    build = runtime.build(options)
    if build is None or not build.info.get("key"):
        text = f"{options.keystone_build}|{options.build_deps}"
        return "unbuilt-" + hashlib.sha256(text.encode()).hexdigest()[:16]
    return str(build.info["key"])


def _profiles(
    names: list[str], counts: count.SideCount
) -> tuple[dict[str, Any], dict[str, str]]:
    """Each workload's profile, and why a workload counted has none (its
    profile replay failed: the count stands without it)."""
    profiles, missing = {}, {}
    for found in counts.workloads:
        name, path = names[found.position], counts.profiles.get(found.position)
        try:
            if path is None:
                raise ValueError("its profile replay failed (see its log)")
            profiles[name] = calls.per_iteration(path)
        except ValueError as exc:
            missing[name] = _reason(exc)
    return profiles, missing


def _libraries(options: LaunchOptions) -> dict[str, str]:
    """What the step's build installed: each distribution's version."""
    build = runtime.build(options)
    return {} if build is None else venvs.installed_versions(build.python)


def _reason(exc: Exception) -> str:
    """Why a step was skipped, in one line: the error's first line, then
    its last (a build's: the tail of the tool's log, where the cause is)."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    return lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}"


def outcome_of(found: Mapping[str, Any]) -> search.Outcome:
    """What the search reads of a step's outcome."""
    if layout.SKIPPED in found:
        return search.Skip(str(found[layout.SKIPPED]))
    workloads = found.get("workloads", {})
    per_request = {name: float(c["instructions"]) for name, c in workloads.items()}
    reads_writes = {
        name: q for name, c in workloads.items() if (q := layout.queries(c)) is not None
    }
    spread = {name: float(c.get("spread", 0.0)) for name, c in workloads.items()}
    return search.Cost(per_request, reads_writes, spread)


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
        "workloads": plan.names,
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
