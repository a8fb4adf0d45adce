"""A bisect over Keystone's commits: each step built, counted, kept.

Each step is a build of one commit (``git+file://REPO@SHA``, with the
suite's libraries unless ``--build-deps`` says otherwise, so that only
Keystone's code differs), counted in one process under callgrind as
``ab --instructions`` counts (:func:`.count.count_side`): instructions and
SQL statements per request, for each workload of the task. The search
(:mod:`rally_keystone_perf.run.bisect_search`) picks the steps.

Every step's outcome goes to ``bisect.json`` as soon as it is known
(:mod:`rally_keystone_perf.layout.bisect`): Ctrl-C keeps the steps done and
the same command resumes. Each workload's count is also kept in a cache
folder by commit, settings, count plan and workload, which later bisects
(another range, another task sharing a workload) reuse. A commit that does
not build, or whose Keystone does not start, is skipped with the reason.
Once the culprit is found, it and the step before it are profiled
(:func:`explain`): each Python function's calls and lines, so that the
page can say where the cost went.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.builds import history, prepare
from rally_keystone_perf.deploy.instructions import calls, count, site
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions, resolve
from rally_keystone_perf.layout import bisect as layout
from rally_keystone_perf.layout import state_files
from rally_keystone_perf.run import bisect_search as search
from rally_keystone_perf.run.instructions import SETTINGS

Echo = Callable[[str], None]
MINUTES_PER_STEP = 5  # a build and a count, measured: about 2 and 3 minutes


@dataclass(frozen=True)
class BisectPlan:
    """What a bisect walks, how each step is counted, where it is kept."""

    folder: Path  # bisect.json and each step's count folder
    repo: Path
    steps: Sequence[history.Commit]  # good first, bad last
    options: LaunchOptions  # every step's, but its build
    workloads: Sequence[dict[str, Any]]  # the task's
    threshold: float = 0.01
    most: int | None = None  # counts this command makes at most
    cache: Path | None = None  # counts kept for later bisects
    count_plan: count.CountPlan = count.CountPlan()


def labels(workloads: Sequence[dict[str, Any]]) -> list[str]:
    """Each workload's name on the page: its scenario, numbered when the
    task has it more than once."""
    names = [str(spec["scenario"]) for spec in count.workload_specs(workloads)]
    return [
        name if names.count(name) == 1 else f"{name} #{names[:n].count(name) + 1}"
        for n, name in enumerate(names)
    ]


def step_options(plan: BisectPlan, sha: str) -> LaunchOptions:
    """The launch options of the step that builds ``sha``."""
    build = f"git+file://{plan.repo.resolve()}@{sha}"
    return dataclasses.replace(plan.options, keystone_build=build, keystone_venv=None)


def identity(plan: BisectPlan) -> dict[str, Any]:
    """What a resumed bisect must share with the one in its folder."""
    counted = site.count_options(plan.options)
    return json.loads(
        json.dumps(
            {
                "good": plan.steps[0].sha,
                "bad": plan.steps[-1].sha,
                "threshold": plan.threshold,
                "build_deps": plan.options.build_deps,
                "settings": {key: getattr(counted, key) for key in SETTINGS},
                "plan": dataclasses.asdict(plan.count_plan),
                "workloads": count.workload_specs(plan.workloads),
            },
            sort_keys=True,
        )
    )


def _cache_file(plan: BisectPlan, sha: str, spec: dict[str, Any]) -> Path | None:
    if plan.cache is None:
        return None
    mine = identity(plan)
    key = {"step": sha, "spec": spec}
    key.update({k: mine[k] for k in ("build_deps", "settings", "plan")})
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    return plan.cache / f"{sha[:12]}-{digest[:16]}.json"


def _from_cache(plan: BisectPlan, sha: str) -> dict[str, Any] | None:
    """The step's counts of every workload, when the cache holds them all."""
    found = {}
    specs = count.workload_specs(plan.workloads)
    for label, spec in zip(labels(plan.workloads), specs, strict=True):
        where = _cache_file(plan, sha, spec)
        if where is None or not where.is_file():
            return None
        found[label] = json.loads(where.read_text())
    return {"workloads": found}


def _to_cache(plan: BisectPlan, sha: str, outcome: dict[str, Any]) -> None:
    specs = count.workload_specs(plan.workloads)
    for label, spec in zip(labels(plan.workloads), specs, strict=True):
        where = _cache_file(plan, sha, spec)
        if where is not None and label in outcome.get("workloads", {}):
            state_files.write_json(where, outcome["workloads"][label])


def count_step(plan: BisectPlan, index: int, echo: Echo) -> dict[str, Any]:
    """Build and count one step; its outcome as ``bisect.json`` holds it
    (skipped, with why, when it does not build or its Keystone does not
    start)."""
    sha = plan.steps[index].sha
    cached = _from_cache(plan, sha)
    if cached is not None:
        echo(f"{sha[:12]}: counted by an earlier bisect, kept")
        return cached
    try:
        deployment = prepare.prepare(resolve(step_options(plan, sha)), echo)
    except LaunchError as exc:
        return {layout.SKIPPED: f"does not build: {_first_line(exc)}"}
    options = site.count_options(deployment.options)
    specs = count.workload_specs(plan.workloads)
    folder = plan.folder / "steps" / sha[:12]
    try:
        counts = count.count_side(folder, options, specs, plan.count_plan, echo)
    except LaunchError as exc:
        return {layout.SKIPPED: f"not counted: {_first_line(exc)}"}
    names = labels(plan.workloads)
    outcome = {
        "workloads": {
            names[found.position]: {
                "instructions": found.per_request,
                "spread": round(found.spread, 6),
                "statements": found.statements_per_request,
            }
            for found in counts.workloads
        }
    }
    _to_cache(plan, sha, outcome)
    return outcome


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


def estimate(steps: int) -> tuple[int, int]:
    """The counts a search of ``steps`` steps (good and bad among them)
    makes when nothing is skipped, and about how many minutes they take."""
    counts = 2 + max(0, math.ceil(math.log2(max(1, steps - 1))))
    return counts, counts * MINUTES_PER_STEP


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
        "history": "commits",
        "repo": str(plan.repo),
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
    head = f"  {step['sha'][:12]} {step['subject'][:60]}"
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
        echo(f"step {len(record['order']) + 1}: {step.sha[:12]} {step.subject[:60]}")
        record["outcomes"][str(index)] = count_step(plan, index, echo)
        record["order"].append(index)
        save(plan.folder, record)
        echo(step_line(record, index))
        return outcome_of(record["outcomes"][str(index)])

    found = search.search(len(plan.steps), measure, outcomes, plan.threshold, plan.most)
    record["conclusion"] = dataclasses.asdict(found)
    save(plan.folder, record)
    if found.status == search.FOUND and found.first_past is not None:
        explain(plan, record, (found.last_within or 0, found.first_past), echo)
    return record


def explain(
    plan: BisectPlan, record: dict[str, Any], pair: tuple[int, int], echo: Echo
) -> None:
    """Profile the culprit and the step before it (each Python function's
    calls and lines, :mod:`.calls`) into ``profiles/<sha>.json``; where it
    failed, why, in the record. Kept: a resumed bisect profiles once."""
    shas = [plan.steps[index].sha for index in pair]
    wanted = {"before": shas[0], "after": shas[1]}
    if record.get("profiled", {}).get("steps") == wanted:
        return
    try:
        for sha in shas:
            echo(f"{sha[:12]}: profiling Keystone's Python functions (natively)")
            profiles = _profile(plan, sha, echo)
            where = plan.folder / layout.PROFILES / f"{sha}.json"
            state_files.write_json(where, profiles)
        record["profiled"] = {"steps": wanted}
    except (LaunchError, ValueError) as exc:
        record["profiled"] = {"steps": wanted, "failed": _first_line(exc)}
        echo(f"profiling failed: {_first_line(exc)}")
    save(plan.folder, record)


def _profile(plan: BisectPlan, sha: str, echo: Echo) -> dict[str, Any]:
    """One step's profile, by workload label."""
    deployment = prepare.prepare(resolve(step_options(plan, sha)), echo)
    options = site.count_options(deployment.options)
    folder = plan.folder / "steps" / sha[:12]
    specs = count.workload_specs(plan.workloads)
    found = count.profile_side(folder, options, specs, plan.count_plan, echo)
    names = labels(plan.workloads)
    return {names[n]: calls.per_iteration(path) for n, path in found.items()}


def save(folder: Path, record: Mapping[str, Any]) -> None:
    """Write ``bisect.json`` atomically."""
    state_files.write_json(folder / layout.BISECT_FILE, record)
