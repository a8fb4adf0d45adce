"""``bisect.json`` read back into records, once, with the profiles of the
culprit and the step before it: the page sets only those two against each
other (:mod:`rally_keystone_perf.layout.bisect` says what they hold)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.layout.bisect import (
    BISECT_FILE,
    BISECT_VERSION,
    FOUND,
    PROFILES,
    SKIPPED,
    Conclusion,
)
from rally_keystone_perf.report.readers.instructions import SideCount

Profile = Mapping[str, tuple[float, float]]  # function -> calls, own lines


class BisectReadError(ValueError):
    """``bisect.json`` absent, unreadable or of another version."""


@dataclass(frozen=True)
class Step:
    """One step of the history, counted or not."""

    index: int
    id: str  # a commit's sha, or a day
    subject: str
    date: str
    files: Sequence[str]
    counts: Mapping[str, SideCount] | None  # by workload; None: not counted
    skipped: str | None = None  # why, when it could not be counted
    libraries: Mapping[str, str] | None = None  # its build's: name -> version
    profile: Mapping[str, Profile] | None = None  # by workload; None: none kept
    not_profiled: Mapping[str, str] | None = None  # a workload's: why none


@dataclass(frozen=True)
class BisectRecord:
    """A bisect as its folder keeps it."""

    history: str  # commits or days
    repo: str
    threshold: float
    steps: Sequence[Step]
    order: Sequence[int]  # step indices as they were counted
    conclusion: Conclusion | None  # None: not yet concluded
    workloads: Sequence[str]  # the labels, in the task's order

    def counted(self) -> list[Step]:
        """The steps counted or skipped, in the history's order."""
        return [step for step in self.steps if step.index in set(self.order)]


def _counts(found: Mapping[str, Any]) -> dict[str, SideCount]:
    return {
        name: SideCount(name, c["instructions"], c.get("spread", 0.0), c["statements"])
        for name, c in found.get("workloads", {}).items()
    }


def _profile(path: Path) -> dict[str, Profile] | None:
    """A step's profile file, by workload; None when there is none."""
    try:
        loaded = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return {
        workload: {name: (float(c), float(n)) for name, (c, n) in fns.items()}
        for workload, fns in loaded.items()
    }


def _step(
    folder: Path,
    index: int,
    raw: Mapping[str, Any],
    found: Mapping[str, Any] | None,
    profiled: bool,
) -> Step:
    skipped = None if found is None else found.get(SKIPPED)
    counts = None if found is None or skipped is not None else _counts(found)
    profile = folder / PROFILES / f"{raw['id']}.json"
    return Step(
        index,
        str(raw["id"]),
        str(raw.get("subject", "")),
        str(raw.get("date", "")),
        tuple(raw.get("files", ())),
        counts,
        skipped,
        None if found is None else found.get("libraries"),
        _profile(profile) if counts is not None and profiled else None,
        None if found is None else found.get("not_profiled"),
    )


def load(folder: Path) -> BisectRecord:
    """The bisect kept in ``folder``.

    :raises BisectReadError: no ``bisect.json``, or not one this reads.
    """
    path = folder / BISECT_FILE
    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise BisectReadError(f"{path}: {exc}") from None
    if raw.get("version") != BISECT_VERSION:
        raise BisectReadError(
            f"{path}: format {raw.get('version')}, this version reads {BISECT_VERSION}"
        )
    outcomes = raw.get("outcomes", {})
    conclusion = (
        Conclusion.from_json(raw["conclusion"]) if raw.get("conclusion") else None
    )
    profiled = _culprit_pair(conclusion)
    steps = [
        _step(folder, n, step, outcomes.get(str(n)), n in profiled)
        for n, step in enumerate(raw["steps"])
    ]
    identity = raw.get("identity", {})
    return BisectRecord(
        raw.get("history", "commits"),
        raw.get("repo", ""),
        float(identity.get("threshold", 0.01)),
        steps,
        list(raw.get("order", ())),
        conclusion,
        list(raw.get("workloads", ())),
    )


def _culprit_pair(conclusion: Conclusion | None) -> set[int]:
    """The culprit's index and the step's before it; none without one."""
    if conclusion is None or conclusion.status != FOUND:
        return set()
    if conclusion.first_past is None:
        return set()
    return {conclusion.first_past, conclusion.last_within or 0}
