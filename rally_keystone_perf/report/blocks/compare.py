"""A comparison (and its concurrency series) as a document.

``table`` and ``markdown`` round durations like Rally (3 decimals), print
ratios with 3 decimals and p-values with 3 significant digits; ``csv`` and
``json`` keep every number unrounded. The CSV has one row per record:
``record`` is ``compare`` (one run's figures for one action of one matched
workload) or ``series`` (one point of a latency-vs-concurrency series);
columns that do not apply to a record are empty. The HTML page has a
section per matched workload (each verdict colored) and per series (its
table and plots: :func:`series_section`, the report page's too). The JSON
document (:func:`data`) is described in
:mod:`rally_keystone_perf.report.blocks.compare_data`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rally_keystone_perf.metrics import TOTAL, finite
from rally_keystone_perf.report.blocks.compare_data import data, series_groups
from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    TEXT,
    Blank,
    Block,
    Column,
    Document,
    Heading,
    Item,
    Items,
    Lines,
    Only,
    Plot,
    Section,
    Series,
    Table,
    columns,
)
from rally_keystone_perf.report.figures.compare import (
    MIN_SAMPLES,
    CompareResult,
    Comparison,
    ScenarioComparison,
    SeriesRow,
)
from rally_keystone_perf.report.figures.run_labels import Run

SERIES_PLOT_WIDTH = 420  # three side by side
VERDICT_STYLES = {
    "baseline": "v-baseline",
    "faster": "v-faster",
    "slower": "v-slower",
    "not significant": "v-ns",
}
COMPARE_COLUMNS = columns(  # durations in seconds (the intro says so): 120 columns
    "action:text; run:text; n; median:seconds; p95:seconds",
    Column("ratio", fmt="fixed3", missing="n/a"),
    "p-value:p",
    Column("verdict", TEXT, styles=VERDICT_STYLES),
)
SERIES_COLUMNS = columns(
    "concurrency; median (sec):seconds; 90 percentile:seconds; 95 percentile:seconds",
    "throughput (iter/s):seconds; success:success; count",
)
CSV_COLUMNS = (
    *("record", "scenario", "concurrency", "occurrence", "action", "run"),
    *("count", "median", "p90", "p95", "ratio", "p_value", "verdict"),
    *("throughput", "success"),
)
TERMINAL, MARKDOWN, HTML = ("table",), ("markdown",), ("html",)


def group_title(group: ScenarioComparison) -> str:
    """``scenario, concurrency N`` (with ``#k`` for repeated workloads)."""
    title = f"{group.scenario}, concurrency {group.concurrency}"
    if group.concurrency is None:
        title = f"{group.scenario}, no concurrency"
    return f"{title} #{group.occurrence + 1}" if group.occurrence else title


def group_table(group: ScenarioComparison) -> Table:
    """Each action's runs, the action named on its first (a new row group)."""
    rows = [
        [action.action if index == 0 else "", result.label, result.count]
        + [result.median, result.p95, result.ratio, result.p_value, result.verdict]
        for action in group.actions
        for index, result in enumerate(action.results)
    ]
    styles = ["first-run" if row[0] else "" for row in rows]
    return Table(COMPARE_COLUMNS, rows, group_title(group), row_styles=styles)


def series_title(config: str, scenario: str) -> str:
    """The caption of one latency-vs-concurrency series."""
    return f"latency vs concurrency: {config}, {scenario}"


def series_plots(rows: Sequence[SeriesRow]) -> list[Plot]:
    """Latency percentiles, throughput and success rate against concurrency."""
    levels = [float(row.concurrency) for row in rows if finite(row.concurrency)]

    def points(field: str, scale: float = 1.0) -> list[tuple[float, float]]:
        return [
            (row.concurrency, getattr(row, field) * scale)
            for row in rows
            if finite(row.concurrency) and finite(getattr(row, field))
        ]

    names = {"median": "median", "90 percentile": "p90", "95 percentile": "p95"}
    latency = [Series(name, points(field)) for name, field in names.items()]
    throughput = [Series("throughput", points("throughput"), 3)]
    success = [Series("success", points("success", 100.0), 4)]
    x, width = "concurrency", SERIES_PLOT_WIDTH
    return [
        Plot(f"{title} vs {x}", x, y, series, levels, width, y_max)
        for title, y, series, y_max in (
            ("latency (total)", "seconds", latency, None),
            ("throughput", "iterations/s", throughput, None),
            ("success rate", "success (%)", success, 100.0),
        )
    ]


def series_section(config: str, scenario: str, rows: Sequence[SeriesRow]) -> Section:
    """Table and plots of one latency-vs-concurrency series."""
    table = Table(
        SERIES_COLUMNS,
        [
            [r.concurrency, r.median, r.p90, r.p95, r.throughput, r.success, r.count]
            for r in rows
        ],
        series_title(config, scenario),
    )
    return Section("series", [table, *series_plots(rows)])


def intro(comparison: Comparison, runs: Sequence[Run]) -> list[str]:
    """Baseline, test and the runs' files."""
    lines = [
        f"baseline: {comparison.baseline}; verdicts: two-sided Mann-Whitney U test "
        "of iteration durations (an action's successful calls, every iteration's "
        f"total), alpha {comparison.alpha:g}, at least {MIN_SAMPLES} samples per "
        "side; durations in seconds"
    ]
    for run in runs:
        lines.append(f"run {run.label}: {', '.join(str(p) for p in run.paths)}")
    return lines


def _head(result: CompareResult) -> list[Block]:
    """The intro: lines in the terminal, a list in markdown, the baseline
    and the runs with their configuration in HTML."""
    said, runs = intro(result.comparison, result.runs), result.runs
    items = [Item(r.label, ", ".join(str(p) for p in r.paths), r.config) for r in runs]
    empty = [] if result.comparison.groups else ["no workloads to compare"]
    return [
        Only(TERMINAL, [Lines(said, AS_IS)]),
        Only(MARKDOWN, [Heading("comparison", 2), Lines(said, bullets=True)]),
        Only(HTML, [Lines(said[:1], style="meta")]),
        Only(HTML, [Items("runs", items)] if runs else []),
        Only(HTML, [Heading("comparison", 2), Lines(empty, style="meta")]),
    ]


def _records(result: CompareResult) -> Table:
    """The CSV's records: a run's figures for one action, a series' point."""
    compared = [
        ["compare", g.scenario, g.concurrency, g.occurrence, a.action, r.label]
        + [r.count, r.median, None, r.p95, r.ratio, r.p_value, r.verdict, None, None]
        for g in result.comparison.groups
        for a in g.actions
        for r in a.results
    ]
    points = [
        ["series", s.scenario, s.concurrency, None, TOTAL, s.config, s.count]
        + [s.median, s.p90, s.p95, None, None, None, s.throughput, s.success]
        for s in result.series
    ]
    return Table([Column(name) for name in CSV_COLUMNS], compared + points)


def document(result: CompareResult) -> Document:
    """The comparison (see the module's doc)."""
    blocks = _head(result)
    for group in result.comparison.groups:
        notes = Lines(group.notes, AS_IS, strong=True, style="note")
        heading = Only(TERMINAL + MARKDOWN, [Heading(group_title(group))])
        blocks += [Only(TERMINAL, [Blank()]), heading]
        blocks.append(Section("group", [group_table(group), notes]))
    groups = series_groups(result.series)
    blocks += [Only(HTML, [Heading("latency vs concurrency", 2)])] if groups else []
    for (config, scenario), rows in groups.items():
        said = Heading(series_title(config, scenario))
        blocks += [Only(TERMINAL, [Blank()]), Only(TERMINAL + MARKDOWN, [said])]
        blocks.append(series_section(config, scenario, rows))
    title = f"rally-keystone-perf compare (baseline {result.comparison.baseline})"
    blocks.append(Only(("csv",), [_records(result)]))
    return Document(title, blocks, level=None, data=data(result))
