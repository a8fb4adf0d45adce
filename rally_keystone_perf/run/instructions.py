"""Instruction counts of an A/B's two sides, or of releases, side by side.

After the timed rounds, each side's Keystone is counted in one process
under callgrind (:mod:`rally_keystone_perf.deploy.instructions`), one side
after the other, and ``instructions.json`` in the A/B folder holds both
(:mod:`rally_keystone_perf.layout.counts`).
Sides may differ by their Keystone build and by the settings whose work
stays inside Keystone's process (:data:`SETTINGS`: token provider, password
hash rounds, cache disabled or request-local, the keystone.conf template).
Sides that differ by what lies outside it (mode, processes, threads,
memcached, the database server, LDAP, nodes...) are refused before anything
starts: that work is not in the count.
"""

from __future__ import annotations

import dataclasses
import json
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
# and the settings whose work stays inside Keystone's process (memcached,
# the one --cache outside it, is refused by site.count_options)
SETTINGS = (
    *("token_provider", "password_hash_rounds", "cache", "token_expiration"),
    "keystone_conf_template",
)
Echo = Callable[[str], None]


def differing_options(deployments: Mapping[str, Deployment]) -> str | None:
    """The launch options, other than the build and the in-process
    settings, by which the sides differ, as ``--name, --other`` (None:
    none)."""
    first, *others = (dataclasses.asdict(d.options) for d in deployments.values())
    differ = {k for o in others for k in first if first[k] != o[k]}
    names = sorted(differ - set(BUILD_OPTIONS) - set(SETTINGS))
    return ", ".join(f"--{name.replace('_', '-')}" for name in names) or None


def check_countable(
    deployments: Mapping[str, Deployment], workloads: Iterable[dict[str, Any]]
) -> None:
    """Refuse, with the reason, what a count cannot compare: an A/B's
    sides, or the releases of ``releases`` (which differ by their build).

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
    names = differing_options(deployments)
    if names:
        raise LaunchError(
            "--instructions counts Keystone's process alone: its build and its "
            "settings (--keystone-build, --token-provider, --password-hash-"
            f"rounds, --cache disabled); the sides also differ by {names}, "
            "whose work lies outside that process and is not counted; drop "
            "--instructions or those options"
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


def _count_one(
    folder: Path,
    name: str,
    deployment: Deployment,
    specs: list[dict[str, Any]],
    plan: count.CountPlan,
    echo: Echo,
) -> dict[str, Any]:
    """One side's (or release's) counts, as ``instructions.json`` holds them,
    made in ``<folder>/instructions/<name>``."""
    options = site.count_options(deployment.options)
    started = time.monotonic()
    counts = count.count_side(folder / FOLDER / name, options, specs, plan, echo)
    return {
        "build": _build(options),
        "settings": {key: getattr(options, key) for key in SETTINGS},
        "seconds": round(time.monotonic() - started, 1),
        "workloads": [found.to_json() for found in counts.workloads],
        "not_counted": {str(n): why for n, why in counts.not_counted.items()},
    }


def _document(
    deployments: Mapping[str, Deployment], plan: count.CountPlan
) -> dict[str, Any]:
    return {
        "version": COUNTS_VERSION,
        "started": time.time(),
        "plan": dataclasses.asdict(plan),
        "conditions": conditions(next(iter(deployments.values())).options),
        "sides": {},
        "failed": {},
    }


def count_ab(
    folder: Path,
    deployments: Mapping[str, Deployment],
    workloads: Iterable[dict[str, Any]],
    echo: Echo,
    plan: count.CountPlan | None = None,
) -> dict[str, Any]:
    """Count each side's workloads; write and return ``instructions.json``.

    :raises LaunchError: a side's count failed (the rounds are kept).
    """
    plan = plan or count.CountPlan()
    specs = count.workload_specs(workloads)
    document = _document(deployments, plan)
    for side, deployment in deployments.items():
        echo(f"side {side.upper()}: instruction counts under callgrind")
        document["sides"][side] = _count_one(
            folder, side, deployment, specs, plan, echo
        )
    write_counts(folder, document)
    return document


def count_releases(
    folder: Path,
    deployments: Mapping[str, Deployment],
    workloads: Iterable[dict[str, Any]],
    echo: Echo,
    plan: count.CountPlan,
) -> dict[str, Any]:
    """Count each release's workloads (the same task's for every release):
    :func:`count_each`."""
    each = list(workloads)
    return count_each(folder, deployments, {r: each for r in deployments}, echo, plan)


def count_each(
    folder: Path,
    deployments: Mapping[str, Deployment],
    workloads: Mapping[str, Iterable[dict[str, Any]]],
    echo: Echo,
    plan: count.CountPlan,
) -> dict[str, Any]:
    """Count each named deployment's own workloads (releases, a study's
    configs) into ``instructions.json``, written after each; one whose count
    fails is kept under ``failed`` with the reason and the others are
    counted. One already counted there (the same build, settings and plan)
    is not counted again: a stopped command resumes its counts too."""
    document = _document(deployments, plan)
    earlier = read_counts(folder)
    if earlier and earlier.get("plan") == document["plan"]:
        document["sides"] = dict(earlier.get("sides", {}))
    for name, deployment in deployments.items():
        if _counted_before(document["sides"].get(name), deployment):
            echo(f"{name}: counted before, kept")
            continue
        echo(f"{name}: instruction counts under callgrind")
        specs = count.workload_specs(workloads[name])
        try:
            document["sides"][name] = _count_one(
                folder, name, deployment, specs, plan, echo
            )
        except LaunchError as exc:
            echo(f"{name}: instruction count failed")
            document["failed"][name] = str(exc)
        write_counts(folder, document)
    return document


def _counted_before(kept: dict[str, Any] | None, deployment: Deployment) -> bool:
    """Whether ``kept`` (a side of an earlier ``instructions.json``) counted
    this deployment's build with its settings."""
    if not kept:
        return False
    options = site.count_options(deployment.options)
    settings = json.loads(json.dumps({k: getattr(options, k) for k in SETTINGS}))
    return bool(
        kept.get("build", {}).get("spec") == options.keystone_build
        and kept.get("settings") == settings
    )


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


def read_counts(folder: Path) -> dict[str, Any] | None:
    """``instructions.json`` as written; None when absent or unreadable."""
    try:
        found = json.loads((folder / COUNTS_FILE).read_text())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None
