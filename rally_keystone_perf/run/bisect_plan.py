"""What a bisect walks: its steps, each step's build, what it must share.

Two histories:

- **commits** (:data:`COMMITS`): Keystone's first-parent commits from good
  to bad (:func:`.history.first_parents`); a step is a build of one
  commit's files (:func:`.history.export`, kept beside the builds), its
  libraries those of ``--build-deps`` (the suite's by default: only
  Keystone's code differs);
- **days** (:data:`DAYS`): one Keystone build, its libraries as PyPI had
  them on each day from good to bad (``--build-deps DAY``, uv's
  ``--exclude-newer``); a step is a day.

:func:`identity` is what a resumed bisect must share with the record in
its folder, and what a cached count is kept under.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.builds import history, venvs
from rally_keystone_perf.deploy.instructions import count, site
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.run.instructions import SETTINGS

COMMITS, DAYS = "commits", "days"
MINUTES_PER_STEP = 5  # a build and a count, measured: about 2 and 3 minutes
COUNT_PLAN = count.CountPlan()  # as ab --instructions counts


@dataclass(frozen=True)
class Step:
    """One step of a history."""

    id: str  # a commit's sha, or a day (YYYY-MM-DD)
    subject: str
    date: str
    files: tuple[str, ...] = ()  # a commit's, against its first parent


@dataclass(frozen=True)
class BisectPlan:
    """What a bisect walks, how each step is counted, where it is kept."""

    folder: Path  # bisect.json and each step's count folder
    history: str  # COMMITS or DAYS
    repo: Path | None  # COMMITS: the Keystone repository
    steps: Sequence[Step]  # good first, bad last
    options: LaunchOptions  # every step's, but what the step changes
    workloads: Sequence[dict[str, Any]]  # the task's
    threshold: float = 0.01
    most: int | None = None  # counts this command makes at most
    cache: Path | None = None  # counts kept for later bisects
    count_plan: count.CountPlan = COUNT_PLAN

    @functools.cached_property
    def specs(self) -> list[dict[str, Any]]:
        """Each workload as a count replays it
        (:func:`rally_keystone_perf.deploy.instructions.count.workload_specs`),
        worked out once."""
        return count.workload_specs(self.workloads)

    @functools.cached_property
    def names(self) -> list[str]:
        """Each workload's name on the page (:func:`labels`)."""
        return labels(self.specs)


def commit_steps(commits: Sequence[history.Commit]) -> list[Step]:
    """The steps of a first-parent history."""
    return [Step(c.sha, c.subject, c.date, c.files) for c in commits]


def day_steps(first: str, last: str, released: str) -> list[Step]:
    """Each day from ``first`` to ``last`` (YYYY-MM-DD).

    A day's libraries are PyPI's at its start (uv's ``--exclude-newer
    DAY``), so the first day must come after the day the build's Keystone
    was uploaded (``released``, an ISO timestamp): on that day's start it
    was not there yet.

    :raises LaunchError: a date not a day, ``last`` not after ``first``, or
        ``first`` not after the release day.
    """
    try:
        start, end = (datetime.date.fromisoformat(d) for d in (first, last))
    except ValueError as exc:
        raise LaunchError(f"--deps-good/--deps-bad: {exc} (give YYYY-MM-DD)") from None
    if end <= start:
        raise LaunchError(f"--deps-bad {last} is not after --deps-good {first}")
    if first <= released[:10]:
        raise LaunchError(
            f"--deps-good {first}: the build's Keystone was uploaded to PyPI on "
            f"{released[:10]}, and a day's libraries are PyPI's at its start; "
            "give a later day"
        )
    days = (end - start).days
    return [
        Step(str(day), f"libraries as of {day}", str(day))
        for day in (start + datetime.timedelta(n) for n in range(days + 1))
    ]


def labels(specs: Sequence[dict[str, Any]]) -> list[str]:
    """Each workload's name on the page, of its count spec: its scenario,
    numbered when the task has it more than once."""
    names = [str(spec["scenario"]) for spec in specs]
    return [
        name if names.count(name) == 1 else f"{name} #{names[:n].count(name) + 1}"
        for n, name in enumerate(names)
    ]


def step_options(plan: BisectPlan, step_id: str) -> LaunchOptions:
    """The launch options of the step ``step_id``: the build of its
    commit's files (:func:`commit_folder`), or the build with its day's
    libraries."""
    if plan.history == DAYS:
        return dataclasses.replace(plan.options, build_deps=step_id, keystone_venv=None)
    build = str(commit_folder(plan, step_id))
    return dataclasses.replace(plan.options, keystone_build=build, keystone_venv=None)


def commit_folder(plan: BisectPlan, sha: str) -> Path:
    """Where commit ``sha``'s files are written to be built: beside the
    builds (``--build-cache``), under ``commits/``. The build of a folder
    is keyed by its path and its files, so the same commit in a later
    bisect reuses both."""
    cache = plan.options.build_cache
    return (Path(cache) if cache else venvs.default_cache()) / "commits" / sha


def identity(plan: BisectPlan) -> dict[str, Any]:
    """What a resumed bisect must share with the one in its folder."""
    counted = site.count_options(plan.options)
    found = {
        "history": plan.history,
        "good": plan.steps[0].id,
        "bad": plan.steps[-1].id,
        "threshold": plan.threshold,
        "keystone_build": plan.options.keystone_build,
        "build_deps": plan.options.build_deps,
        "settings": {key: getattr(counted, key) for key in SETTINGS},
        "plan": dataclasses.asdict(plan.count_plan),
        "workloads": plan.specs,
    }
    return dict(json.loads(json.dumps(found, sort_keys=True)))


def default_folder(plan: BisectPlan, parent: Path) -> Path:
    """``<parent>/bisect-<good>-<bad>-<digest>``: the digest of the plan's
    :func:`identity`, so that the same range bisected with another task,
    threshold or build goes beside it, not into it."""
    text = json.dumps(identity(plan), sort_keys=True).encode()
    digest = hashlib.sha256(text).hexdigest()[:8]
    ends = f"{plan.steps[0].id[:12]}-{plan.steps[-1].id[:12]}"
    return parent / f"bisect-{ends}-{digest}"


def estimate(steps: int) -> tuple[int, int]:
    """The counts a search of ``steps`` steps (good and bad among them)
    makes when nothing is skipped, and about how many minutes they take."""
    counts = 2 + max(0, math.ceil(math.log2(max(1, steps - 1))))
    return counts, counts * MINUTES_PER_STEP
