"""Instruction counts of an A/B's two Keystone builds, side by side.

After the timed rounds, each side's Keystone is counted in one process
under callgrind (:mod:`rally_keystone_perf.deploy.instructions`), one side
after the other, and ``instructions.json`` in the A/B folder holds both
(:mod:`rally_keystone_perf.layout.counts`).
A count compares Keystone builds only: sides that differ by a deployment
option (mode, processes, cache, database...) are refused before anything
starts, since the work those options move lies outside Keystone's process.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.builds import prepare, runtime, source
from rally_keystone_perf.deploy.instructions import count, markers, recipes, site
from rally_keystone_perf.deploy.options import (
    Deployment,
    LaunchError,
    LaunchOptions,
    resolve,
)
from rally_keystone_perf.layout import state_files
from rally_keystone_perf.layout.counts import COUNTS_FILE, COUNTS_VERSION

FOLDER = "instructions"
# what may differ between the sides of a count: the build, and where it is
BUILD_OPTIONS = (
    *("keystone_build", "build_deps", "keystone_venv", "build_cache"),
    *("host", "port"),
)
Echo = Callable[[str], None]


def differing_options(deployments: Mapping[str, Deployment]) -> list[str]:
    """The launch options, other than the build, by which the sides differ."""
    a, b = (dataclasses.asdict(deployments[s].options) for s in ("a", "b"))
    return sorted(k for k in a if k not in BUILD_OPTIONS and a[k] != b[k])


def check_countable(
    deployments: Mapping[str, Deployment], workloads: Iterable[dict[str, Any]]
) -> None:
    """Refuse, with the reason, what a count cannot compare.

    :raises LaunchError: no valgrind or no C compiler; sides differing by a
        deployment option, options one process cannot hold
        (:func:`.site.count_options`), or a scenario with no recipe.
    """
    count.valgrind()
    markers.compiler()
    try:
        count.workload_specs(workloads)
    except recipes.RecipeError as exc:
        raise LaunchError(f"--instructions: {exc}") from None
    differ = differing_options(deployments)
    if differ:
        names = ", ".join(f"--{name.replace('_', '-')}" for name in differ)
        raise LaunchError(
            "--instructions compares Keystone builds (--keystone-build): the "
            f"sides also differ by {names}, whose work lies outside Keystone's "
            "process and is not counted; drop --instructions or those options"
        )
    for deployment in deployments.values():
        site.count_options(deployment.options)


def count_deployments(
    deployments: Mapping[str, Deployment], echo: Echo
) -> dict[str, Deployment]:
    """What each side's count runs: both sides builds when one side is.

    A build's venv holds Keystone and its libraries only; the suite's venv
    holds many more packages, and with them a validation counted 0.9% more
    (more modules and types in the process). So a side with no build is
    counted as the installed release built the same way
    (``keystone==<installed version>``, cached like every build).

    :raises LaunchError: that release cannot be installed from the index.
    """
    built = {s: d.options.keystone_venv is not None for s, d in deployments.items()}
    if all(built.values()) or not any(built.values()):
        return dict(deployments)
    release = f"keystone=={source.installed_version()}"
    echo(f"instruction counts: the side with no build is counted as {release}")
    counted = dict(deployments)
    for side in (s for s, has in built.items() if not has):
        options = dataclasses.replace(
            deployments[side].options, keystone_build=release, keystone_venv=None
        )
        try:
            counted[side] = prepare.prepare(resolve(options), echo)
        except LaunchError as exc:
            raise LaunchError(
                f"--instructions: side {side.upper()} has no --keystone-build and "
                f"the installed release could not be built ({exc}); give it one"
            ) from None
    return counted


def _build(options: LaunchOptions) -> dict[str, Any]:
    """The build a side counted: its spec, version and source (a git
    build's commit among it), as run.json records a started build's."""
    built = runtime.build(options)
    if built is None:
        return {"spec": None, "version": None, "source": None}
    return {
        "spec": options.keystone_build,
        "version": built.info.get("version"),
        "source": built.info.get("source"),
    }


def count_ab(
    folder: Path,
    deployments: Mapping[str, Deployment],
    workloads: Iterable[dict[str, Any]],
    echo: Echo,
    plan: count.CountPlan | None = None,
) -> dict[str, Any]:
    """Count each side's workloads; write and return ``instructions.json``."""
    plan = plan or count.CountPlan()
    specs = count.workload_specs(workloads)
    started = time.time()
    sides: dict[str, Any] = {}
    for side, deployment in deployments.items():
        options = site.count_options(deployment.options)
        echo(f"side {side.upper()}: instruction counts under callgrind")
        side_started = time.monotonic()
        counts = count.count_side(folder / FOLDER / side, options, specs, plan, echo)
        sides[side] = {
            "build": _build(options),
            "seconds": round(time.monotonic() - side_started, 1),
            "workloads": [found.to_json() for found in counts],
        }
    document = {
        "version": COUNTS_VERSION,
        "started": started,
        "plan": dataclasses.asdict(plan),
        "conditions": conditions(deployments["a"].options),
        "sides": sides,
    }
    write_counts(folder, document)
    return document


def conditions(options: LaunchOptions) -> dict[str, Any]:
    """What the counts cover, in words the report prints."""
    counted = site.count_options(options)
    return {
        "process": "Keystone's WSGI application in one process, SQLite in it",
        "password_hash_rounds": counted.password_hash_rounds,
        "token_provider": counted.token_provider,
        "hash_seed": count.HASH_SEED,
    }


def write_counts(folder: Path, document: dict[str, Any]) -> None:
    """Write ``instructions.json`` atomically."""
    state_files.write_json(folder / COUNTS_FILE, document)
