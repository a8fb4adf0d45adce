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

from rally_keystone_perf.deploy.instructions import count
from rally_keystone_perf.layout import state_files
from rally_keystone_perf.run.bisect_plan import BisectPlan, identity, labels

CACHE_VERSION = 1


def entry_file(plan: BisectPlan, build: str, spec: dict[str, Any]) -> Path | None:
    """Where one workload's count of build ``build`` is kept (None: no
    cache)."""
    if plan.cache is None:
        return None
    mine = identity(plan)
    key = {"version": CACHE_VERSION, "spec": spec}
    key.update({k: mine[k] for k in ("settings", "plan")})
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    return plan.cache / f"{build}-{digest[:16]}.json"


def load(plan: BisectPlan, build: str) -> dict[str, Any] | None:
    """The outcome of every workload's count of ``build`` (its
    ``profiles`` beside), when the cache holds them all; else None."""
    found, profiles, libraries = {}, {}, {}
    specs = count.workload_specs(plan.workloads)
    for label, spec in zip(labels(plan.workloads), specs, strict=True):
        where = entry_file(plan, build, spec)
        if where is None or not where.is_file():
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
    specs = count.workload_specs(plan.workloads)
    for label, spec in zip(labels(plan.workloads), specs, strict=True):
        where = entry_file(plan, build, spec)
        if where is not None and label in outcome.get("workloads", {}):
            kept = {
                "count": outcome["workloads"][label],
                "libraries": outcome["libraries"],
                "profile": profiles.get(label),
            }
            state_files.write_json(where, kept)
