"""Instruction counts read back (``instructions.json``): an A/B's sides, or
the releases of ``releases``.

Written by :mod:`rally_keystone_perf.run.instructions` when the A/B ran
with ``--instructions``, and by ``releases`` unless it ran with
``--no-instructions``; absent otherwise. Its name and version:
:mod:`rally_keystone_perf.layout.counts`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.layout.counts import COUNTS_FILE, COUNTS_VERSION
from rally_keystone_perf.report.readers.rally_json import ReportError


@dataclass(frozen=True)
class SideCount:
    """One workload's count on one side."""

    scenario: str
    per_request: float
    spread: float  # (largest - smallest) / median of its layouts' figures
    statements: dict[str, float] | None  # per request, by kind; None: older


@dataclass(frozen=True)
class InstructionCounts:
    """Both sides' counts, by workload position, and what they cover."""

    sides: dict[str, dict[int, SideCount]]
    conditions: dict[str, Any]
    failed: dict[str, str]  # a release whose count failed: why
    plan: dict[str, Any]  # how each workload was counted (count.CountPlan)
    not_counted: dict[int, str]  # a workload's position: why not counted


def _statements(found: dict[str, Any] | None) -> dict[str, float] | None:
    """Statements per request by kind; None when the counts predate them."""
    return None if found is None else {k: float(v) for k, v in found.items()}


def _side(workloads: list[dict[str, Any]]) -> dict[int, SideCount]:
    return {
        int(w["position"]): SideCount(
            w["scenario"],
            float(w["per_request"]),
            float(w["spread"]),
            _statements(w.get("statements_per_request")),
        )
        for w in workloads
    }


def load(folder: Path) -> InstructionCounts | None:
    """The counts of the A/B in ``folder``; None when it has none.

    :raises ReportError: the file is unreadable or of another version.
    """
    path = folder / COUNTS_FILE
    if not path.exists():
        return None
    try:
        document = json.loads(path.read_text())
        if document.get("version") != COUNTS_VERSION:
            raise ValueError(f"version {document.get('version')!r}")
        sides = {s: _side(v["workloads"]) for s, v in document["sides"].items()}
        return InstructionCounts(
            sides,
            dict(document.get("conditions", {})),
            {str(k): str(v) for k, v in document.get("failed", {}).items()},
            dict(document.get("plan", {})),
            {
                int(position): str(why)
                for side in document["sides"].values()
                for position, why in side.get("not_counted", {}).items()
            },
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReportError(f"{path}: not readable instruction counts ({exc})") from None
