"""Which tier of a cluster saturated its CPU quota, in words: the report's
saturation line under the tiers' table
(:mod:`rally_keystone_perf.report.blocks.cluster`) and the scaling table's
cell (:mod:`rally_keystone_perf.report.blocks.scaling`).
"""

from __future__ import annotations

from rally_keystone_perf.report.figures.cluster_view import (
    DATABASE,
    NODES,
    SATURATED,
    Saturated,
    WorkloadClusterView,
)

NOT_JUDGED = "n/a (no CPU sample of a tier with a quota)"
UNDER = f"no tier at {SATURATED * 100:.0f}% of its CPU quota"


def _described(found: Saturated) -> str:
    percent = f"{found.use * 100:.0f}%"
    if found.tier == NODES:
        return f"{NODES} ({percent} of {found.quota:g} CPU each)"
    return f"{found.tier} ({percent} of its {found.quota:g}-CPU quota)"


def _no_quotas(view: WorkloadClusterView) -> bool:
    return view.quotas.node is None and view.quotas.db is None


def _unlimited(view: WorkloadClusterView) -> str:
    """``; nodes: no quota`` for each tier without a quota (the other has one)."""
    limits = ((NODES, view.quotas.node), (DATABASE, view.quotas.db))
    return "".join(f"; {name}: no quota" for name, quota in limits if quota is None)


def saturation_line(view: WorkloadClusterView) -> str:
    """Which tier used at least 90% of its CPU quota, or why none is named."""
    if view.saturated:
        return "saturated: " + saturation_cell(view)
    if _no_quotas(view):
        return "no quotas: CPU shares shown"
    if not view.judged:
        return f"saturation: {NOT_JUDGED}"
    return f"none saturated ({UNDER}){_unlimited(view)}"


def saturation_cell(view: WorkloadClusterView) -> str:
    """:func:`saturation_line` for a table cell (the scaling table's): the
    saturated tiers, ``none (...)``, ``no quotas`` or ``n/a (...)``."""
    if view.saturated:
        return ", ".join(_described(s) for s in view.saturated)
    if _no_quotas(view):
        return "no quotas"
    if not view.judged:
        return NOT_JUDGED
    return f"none ({UNDER}){_unlimited(view)}"
