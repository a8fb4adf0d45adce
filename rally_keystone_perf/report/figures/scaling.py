"""Throughput against Keystone nodes: a matrix's runs beside seed 001's.

Seed 001 ("The concurrency value against PKI V3") measured
``token_authenticate`` and ``revocation_list_get`` per second against 1, 2,
3 and 4 Apache Keystone hosts behind haproxy on one PostgreSQL: 57/330,
105/560, 140/800, 140/1000 (one Python-only Keystone process: 10/58), a
plateau from 3 hosts that it blamed on the database. Their successors are
``KeystonePerf.create_token`` (tokens/s) and
``KeystonePerf.list_revocation_events`` (revocation event listings/s), the
``tasks/<mode>/*-throughput-c8-<size>.json`` files ``matrix --nodes
1,2,3,4`` runs at each node count.

:func:`scaling_figures` gives one row per node count of each configuration
(the reports' columns but those in :data:`NOT_GROUPED`; the ones that differ
between configurations lead the rows):

``concurrency``
    the token workload's (and the listing's, when it differs).
``tokens/s``, ``revocation listings/s``
    successful iterations per second (:func:`.stats.throughput`). Of several
    workloads of a scenario at one node count (several concurrency levels)
    the fastest counts, as seed 001 added client processes until the rate
    stopped growing.
``token median ms``, ``token p95 ms``
    of that token workload's ``total`` (:func:`.stats.main_stats`).
``saturated``
    the tier that saturated during the token workload
    (:mod:`.cluster_view`, written by :mod:`..blocks.scaling`); a
    single host held to ``--node-cpus`` is the one node, its
    ``logs/resources.csv`` its samples; ``-`` without server data.
``seed 001 tokens/s``, ``seed 001 revocations/s``
    the seed's Apache figures for 1 to 4 nodes (``-`` for other counts).

Every function here is pure (reads the run folders' files only) and returns
numbers; :mod:`rally_keystone_perf.report.blocks.scaling` makes the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rally_keystone_perf.layout import names
from rally_keystone_perf.layout.rundir import RunState
from rally_keystone_perf.report.figures import cluster_view, server_view
from rally_keystone_perf.report.figures.run_labels import (
    NODES,
    UNKNOWN,
    LoadedReport,
    column,
    union_keys,
)
from rally_keystone_perf.report.figures.stats import (
    StatsRow,
    main_stats,
    throughput,
    total_row,
)
from rally_keystone_perf.report.readers.rally_json import ReportError, Workload

TOKEN = "KeystonePerf.create_token"
REVOCATION = "KeystonePerf.list_revocation_events"
# seed 001's Apache Keystone hosts behind haproxy: nodes -> (tokens/s, listings/s)
SEED_001 = {1: (57, 330), 2: (105, 560), 3: (140, 800), 4: (140, 1000)}
# columns that do not tell one configuration from another here (the user
# pool's column has the seconds it took, different in every run)
NOT_GROUPED = (NODES, "balance", "concurrency", "times", "user pool")
Group = tuple[tuple[str, str], ...]  # sorted (column, value) pairs
Saturation = cluster_view.WorkloadClusterView | None


@dataclass(frozen=True)
class Measured:
    """A token or revocation listing workload with its report and columns."""

    report: LoadedReport
    workload: Workload
    columns: dict[str, str]
    rate: float | None  # successful iterations per second

    @property
    def nodes(self) -> str:
        return column(self.columns, NODES, UNKNOWN)

    @property
    def group(self) -> Group:
        """The configuration this workload ran under, but its node count."""
        kept = {k: v for k, v in self.columns.items() if k not in NOT_GROUPED}
        return tuple(sorted(kept.items()))


def measured(reports: Iterable[LoadedReport]) -> list[Measured]:
    """The reports' token and revocation listing workloads."""
    return [
        Measured(report, workload, report.columns(workload), throughput(workload))
        for report in reports
        for workload in report.workloads
        if workload.scenario_name in (TOKEN, REVOCATION)
    ]


def _node_order(nodes: str) -> tuple[int, str]:
    """1, 2, ..., 10, then what is not a count."""
    return (int(nodes), "") if nodes.isdigit() else (1 << 30, nodes)


def node_counts(reports: Iterable[LoadedReport]) -> list[str]:
    """The node counts the reports ran against, in order."""
    found = {column(report.config, NODES, UNKNOWN) for report in reports}
    return sorted(found, key=_node_order)


def _fastest(found: Sequence[Measured], scenario: str) -> Measured | None:
    of = [m for m in found if m.workload.scenario_name == scenario]
    return max(of, key=lambda m: -1.0 if m.rate is None else m.rate, default=None)


def _host_view(
    server: server_view.WorkloadServerView, state: RunState | None
) -> cluster_view.WorkloadClusterView | None:
    """A single host's server tree (logs/resources.csv) as a one-node
    cluster's node against ``--node-cpus``; None when it was not sampled."""
    if server.resources is None:
        return None
    limits = cluster_view.Quotas() if state is None else cluster_view.quotas(state)
    node = cluster_view.TierView(
        names.node_name(0),
        requests=None,  # the CPU is all the saturation needs
        share=None,
        median=None,
        p95=None,
        usage=server.resources,
        quota=limits.node,
        cpu_per_request=None,
    )
    found = cluster_view.saturation([node], None, limits)
    return cluster_view.WorkloadClusterView([node], None, None, None, limits, found)


def saturation(report: LoadedReport, workload: Workload) -> Saturation:
    """The tiers during ``workload`` (None: its run folder has no server data).

    :raises ReportError: a log of the run folder cannot be read.
    """
    view = server_view.server_view(report.path, [workload], report.state)
    if view is None:
        return None
    (server,) = view.workloads
    return server.cluster or _host_view(server, report.state)


@dataclass(frozen=True)
class ScalingRow:
    """One configuration at one node count: its figures, numbers only."""

    config: dict[str, str]  # the leading columns' values
    nodes: str
    token: Measured | None  # the fastest token workload
    listing: Measured | None  # the fastest revocation listing workload
    token_total: StatsRow | None  # the token workload's ``total`` row
    tiers: Saturation  # the tiers during the token workload
    unreadable: bool  # a log of the token workload's run cannot be read
    seed: tuple[int, int] | None  # seed 001's tokens/s and revocations/s


@dataclass(frozen=True)
class ScalingFigures:
    """The leading configuration columns and a row per configuration and count."""

    leading: list[str]
    rows: list[ScalingRow]


def scaling_row(
    config: dict[str, str], nodes: str, found: Sequence[Measured]
) -> ScalingRow:
    """The figures of one node count's workloads."""
    token, listing = _fastest(found, TOKEN), _fastest(found, REVOCATION)
    total = None if token is None else total_row(main_stats(token.workload))
    tiers, unreadable = None, False
    if token is not None:
        try:
            tiers = saturation(token.report, token.workload)
        except ReportError:
            unreadable = True
    seed = SEED_001.get(int(nodes)) if nodes.isdigit() else None
    return ScalingRow(config, nodes, token, listing, total, tiers, unreadable, seed)


def _differing(groups: Sequence[Group]) -> list[str]:
    """The columns whose value is not the same in every group."""
    mappings = [dict(group) for group in groups]
    return [
        key
        for key in union_keys(mappings)
        if len({mapping.get(key) for mapping in mappings}) > 1
    ]


def scaling_figures(reports: Sequence[LoadedReport]) -> ScalingFigures:
    """A row per configuration and node count (see above).

    Rows follow the configurations' first appearance, then the node counts;
    no token or listing workload, no rows.
    """
    by_cell: dict[tuple[Group, str], list[Measured]] = {}
    for found in measured(reports):
        by_cell.setdefault((found.group, found.nodes), []).append(found)
    groups = list(dict.fromkeys(group for group, _ in by_cell))
    leading = _differing(groups)
    rows: list[ScalingRow] = []
    for group in groups:
        values = dict(group)
        config = {key: values[key] for key in leading if key in values}
        counts = sorted((n for g, n in by_cell if g == group), key=_node_order)
        rows.extend(scaling_row(config, n, by_cell[(group, n)]) for n in counts)
    return ScalingFigures(leading, rows)
