"""Counts kept across bisects, by build, workload, settings and count plan.

A step's count is kept per workload in ``<cache>/<build key>-<digest>.json``
with the build's libraries and the workload's profile. The build key is the
build's own (:class:`rally_keystone_perf.deploy.builds.resolve.Resolution`:
Keystone's version and exact source, the interpreter, the libraries pinned
or as of a day), so a count is reused only for the same build; the digest
covers the workload and what the count's options and plan are. A later
bisect over an overlapping range, or with another task sharing a workload,
counts only what is not here.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from rally_keystone_perf.layout import state_files
from rally_keystone_perf.run.bisect_plan import BisectPlan, identity

CACHE_VERSION = 1


def entry_files(plan: BisectPlan, build: str) -> dict[str, Path]:
    """Where each workload's count of build ``build`` is kept, by its name
    on the page (none without a cache)."""
    if plan.cache is None:
        return {}
    mine = identity(plan)
    shared = {k: mine[k] for k in ("settings", "plan")}
    found = {}
    for name, spec in zip(plan.names, plan.specs, strict=True):
        key = {"version": CACHE_VERSION, "spec": spec, **shared}
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
        found[name] = plan.cache / f"{build}-{digest[:16]}.json"
    return found


def load(plan: BisectPlan, build: str) -> dict[str, Any] | None:
    """The outcome of every workload's count of ``build`` (its
    ``profiles`` beside), when the cache holds them all; else None."""
    found, profiles, libraries = {}, {}, {}
    files = entry_files(plan, build)
    if not files:
        return None
    for label, where in files.items():
        if not where.is_file():
            return None
        kept = json.loads(where.read_text())
        found[label], libraries = kept["count"], kept.get("libraries", {})
        if kept.get("profile") is not None:
            profiles[label] = kept["profile"]
    return {"workloads": found, "libraries": libraries, "profiles": profiles}


def save(
    plan: BisectPlan, build: str, outcome: dict[str, Any], profiles: dict[str, Any]
) -> None:
    """Keep each workload ``outcome`` counted, with its profile."""
    for label, where in entry_files(plan, build).items():
        if label in outcome.get("workloads", {}):
            kept = {
                "count": outcome["workloads"][label],
                "libraries": outcome["libraries"],
                "profile": profiles.get(label),
            }
            state_files.write_json(where, kept)
