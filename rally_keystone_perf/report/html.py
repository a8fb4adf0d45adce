"""Write the report and the comparison as one self-contained HTML page.

The page needs nothing but itself: styles are inline, there is no script,
font, image or link to anything outside the file, and a Content Security
Policy (``default-src 'none'``) makes the browser refuse any such resource.
Plots are inline SVG drawn here (no plotting library).

The tables hold the same cells as the ``table`` format (same rounding, same
columns, the same row builders for the comparison); every table's caption
names its scenario. All text (scenario names, file names, error messages) is
escaped with :func:`html.escape`; tracebacks are never shown.

``report`` shows, per workload, Rally's statistics table, the load duration
and throughput, the concurrency asked and reached (:mod:`.concurrency`), the
error summary and the iteration durations over time.
``compare`` shows one table per matched workload and, for every
latency-vs-concurrency series, its table and plots of the latency
percentiles, the throughput and the success rate against concurrency.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from rally_keystone_perf.report import render
from rally_keystone_perf.report.compare import (
    Comparison,
    ScenarioComparison,
    SeriesRow,
)
from rally_keystone_perf.report.compare_formats import (
    COMPARE_COLUMNS,
    SERIES_COLUMNS,
    TEXT_COLUMNS,
    _group_rows,
    _intro,
    _series_rows,
    group_title,
    series_groups,
)
from rally_keystone_perf.report.config import Run, config_warnings
from rally_keystone_perf.report.formats import THROUGHPUT, FileEntries, ReportEntry
from rally_keystone_perf.report.load import Workload
from rally_keystone_perf.report.stats import TOTAL

CSP = "default-src 'none'; style-src 'unsafe-inline'"
COLORS = ("#1f6fb4", "#e07b00", "#c62828", "#2e7d32", "#6a3d9a")
OK_COLOR, FAILED_COLOR = "#1f6fb4", "#c62828"
INDENT_EM = 1.5
SERIES_PLOT_WIDTH = 420  # three side by side
VERDICT_CLASSES = {
    "baseline": "v-baseline",
    "faster": "v-faster",
    "slower": "v-slower",
    "not significant": "v-ns",
}

STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans",
       sans-serif; margin: 0; color: #1d2328; background: #fff; line-height: 1.4; }
main { max-width: 1600px; margin: 0 auto; padding: 16px 16px 48px; }
h1 { font-size: 1.6em; margin: 0.4em 0; }
h2 { font-size: 1.3em; margin: 1.6em 0 0.4em; padding-bottom: 4px;
     border-bottom: 2px solid #d0d7de; word-break: break-all; }
section.workload, section.group, section.series {
  border: 1px solid #d0d7de; border-radius: 6px; padding: 6px 12px 12px;
  margin: 16px 0; }
.meta, .config, .summary { color: #4a545e; margin: 0.3em 0; }
.note { color: #8a4b00; font-weight: 600; margin: 0.3em 0; }
.config span { display: inline-block; margin-right: 1.2em; }
.config b { font-weight: 600; color: #1d2328; }
nav ul { columns: 2; margin: 0.3em 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.86em;
        font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; font-weight: 600; font-size: 1.12em;
          padding: 6px 0 8px; word-break: break-word; }
th, td { border: 1px solid #d0d7de; padding: 3px 5px; text-align: right;
         white-space: nowrap; }
th { background: #eef1f4; white-space: normal; vertical-align: bottom; }
th.text, td.text { text-align: left; }
tbody tr:nth-child(even) { background: #f7f9fb; }
tr.total td { font-weight: 600; }
tr.nested td.text { color: #4a545e; }
tr.first-run td { border-top: 2px solid #9aa5b1; }
td.v-faster { color: #1b5e20; font-weight: 600; }
td.v-slower { color: #b71c1c; font-weight: 600; }
td.v-baseline { color: #4a545e; }
td.v-ns { color: #4a545e; }
ul.errors { margin: 0.2em 0; color: #8a1c1c; }
ul.errors li { word-break: break-word; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 8px; }
svg.plot { background: #fff; border: 1px solid #e3e8ed; border-radius: 4px;
           max-width: 100%; height: auto; }
svg.plot text { font-family: inherit; font-size: 12px; fill: #1d2328; }
svg.plot text.title { font-size: 13px; font-weight: 600; }
svg.plot .axis { stroke: #6b7580; stroke-width: 1; }
svg.plot .grid { stroke: #e3e8ed; stroke-width: 1; }
""".strip()


def esc(value: object) -> str:
    """``value`` as text escaped for HTML and SVG (quotes included)."""
    return html.escape(str(value), quote=True)


# --- page --------------------------------------------------------------------------


def page(title: str, body: Iterable[str]) -> str:
    """A complete HTML5 document with the inline style sheet."""
    head = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">',
        '<meta name="generator" content="rally-keystone-perf">',
        f"<title>{esc(title)}</title>",
        f"<style>\n{STYLE}\n</style>",
        "</head>",
        "<body>",
        "<main>",
        f"<h1>{esc(title)}</h1>",
    ]
    return "\n".join([*head, *body, "</main>", "</body>", "</html>"]) + "\n"


def table(
    caption: str,
    header: Sequence[str],
    rows: Iterable[Sequence[str]],
    left: Iterable[str] = ("action",),
    row_attrs: Iterable[str] | None = None,
    cell_classes: Iterable[Sequence[str]] | None = None,
    indents: Iterable[int] | None = None,
) -> str:
    """A captioned table; ``left`` columns align left.

    ``row_attrs`` are extra (already escaped) ``<tr>`` attributes per row,
    ``cell_classes`` extra classes per cell and ``indents`` the nesting depth
    of each row's first cell.
    """
    text_columns = {index for index, name in enumerate(header) if name in left}

    def classes(index: int, extra: str = "") -> str:
        names = " ".join(
            name for name in ("text" if index in text_columns else "", extra) if name
        )
        return f' class="{names}"' if names else ""

    lines = [
        '<div class="scroll"><table>',
        f"<caption>{esc(caption)}</caption>",
        "<thead><tr>"
        + "".join(
            f'<th scope="col"{classes(i)}>{esc(name)}</th>'
            for i, name in enumerate(header)
        )
        + "</tr></thead>",
        "<tbody>",
    ]
    rows = list(rows)
    attrs = list(row_attrs) if row_attrs is not None else [""] * len(rows)
    extra = list(cell_classes) if cell_classes is not None else [()] * len(rows)
    depths = list(indents) if indents is not None else [0] * len(rows)
    for row, attr, cell_extra, depth in zip(rows, attrs, extra, depths, strict=True):
        cells = []
        for i, value in enumerate(row):
            cls = classes(i, cell_extra[i] if i < len(cell_extra) else "")
            if i == 0 and depth:
                cls += f' style="padding-left:{0.5 + INDENT_EM * depth:g}em"'
            cells.append(f"<td{cls}>{esc(value)}</td>")
        lines.append(f"<tr{attr}>{''.join(cells)}</tr>")
    lines += ["</tbody>", "</table></div>"]
    return "\n".join(lines)


def _config_line(config: dict[str, str]) -> str:
    """``key value`` pairs of a configuration on one line."""
    if not config:
        return ""
    pairs = "".join(
        f"<span><b>{esc(key)}</b> {esc(value)}</span>" for key, value in config.items()
    )
    return f'<p class="config">{pairs}</p>'


# --- SVG plots ---------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One data series of a plot: a line with markers, or dots only."""

    label: str
    points: Sequence[tuple[float, float]]
    color: str
    scatter: bool = False


def _finite(value: Any) -> bool:
    """A real number that is not NaN or infinite (bools excluded)."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
    )


def _plottable(points: Iterable[tuple[Any, Any]]) -> list[tuple[float, float]]:
    """The points whose coordinates are both finite numbers, as floats."""
    kept = []
    for x, y in points:
        try:
            if math.isfinite(x) and math.isfinite(y):
                kept.append((float(x), float(y)))
        except TypeError:  # None (Rally's n/a) or not a number
            continue
    return kept


def _step(span: float, count: int = 5) -> float:
    """A 1-2-2.5-5 tick step giving about ``count`` ticks over ``span``."""
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 2.5, 5.0):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def _tick_text(value: float) -> str:
    """A tick label without floating-point noise."""
    return f"{round(value, 9):.6g}"


def _axis(low: float, high: float) -> tuple[float, float, list[float]]:
    """A nice domain covering ``low..high`` and its ticks."""
    if high <= low:
        pad = abs(high) * 0.5 or 1.0
        low, high = low - pad if low < 0 else low, high + pad
    step = _step(high - low)
    low = math.floor(low / step + 1e-9) * step
    high = math.ceil(high / step - 1e-9) * step
    count = round((high - low) / step)
    return low, high, [low + i * step for i in range(count + 1)]


def chart(
    title: str,
    x_label: str,
    y_label: str,
    lines: Sequence[Line],
    *,
    x_ticks: Sequence[float] | None = None,
    x_min: float | None = None,
    y_max: float | None = None,
    width: int = 560,
    height: int = 320,
) -> str:
    """An inline SVG plot of ``lines``; empty when there is no finite point.

    ``x_ticks`` puts the x ticks at those values (the concurrency levels);
    otherwise ticks are round numbers, from ``x_min`` when given. The y axis
    starts at 0 and ends at ``y_max`` or a round number above the data.
    """
    data = [
        Line(
            line.label,
            _plottable(line.points),
            line.color,
            line.scatter,
        )
        for line in lines
    ]
    points = [point for line in data for point in line.points]
    if not points:
        return ""
    xs = [x for x, _ in points]
    if x_ticks:
        ticks = sorted({float(t) for t in x_ticks if _finite(t)})
        x_low, x_high = min(ticks), max(ticks)
        pad = (x_high - x_low) * 0.04 or 1.0  # markers off the axes
        x_low, x_high = x_low - pad, x_high + pad
    else:
        start = min(xs) if x_min is None else min(x_min, min(xs))
        x_low, x_high, ticks = _axis(start, max(xs))
    top = max(y for _, y in points)
    if y_max is not None:
        y_high, y_ticks = y_max, _axis(0.0, y_max)[2]
    else:
        _, y_high, y_ticks = _axis(0.0, top if top > 0 else 1.0)

    left, right, upper, bottom = 64, 20, 48, 46
    plot_w, plot_h = width - left - right, height - upper - bottom

    def px(x: float) -> float:
        return left + (x - x_low) / (x_high - x_low) * plot_w

    def py(y: float) -> float:
        return upper + plot_h - y / y_high * plot_h

    parts = [
        f'<svg class="plot" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f"<title>{esc(title)}</title>",
        f'<text class="title" x="{left}" y="18">{esc(title)}</text>',
    ]
    # legend on one line under the title
    lx = float(left)
    for line in data:
        if line.scatter:
            mark = (
                f'<path d="M{lx + 7:.1f} 34h0" stroke="{line.color}" '
                'stroke-width="7" stroke-linecap="round"/>'
            )
        else:
            mark = (
                f'<path d="M{lx:.1f} 34h16" stroke="{line.color}" stroke-width="2.5"/>'
            )
        parts.append(mark)
        parts.append(f'<text x="{lx + 20:.1f}" y="38">{esc(line.label)}</text>')
        lx += 34 + 7 * len(line.label)
    for tick in y_ticks:
        y = py(tick)
        parts.append(
            f'<path class="grid" d="M{left} {y:.1f}H{left + plot_w}"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{esc(_tick_text(tick))}</text>"
        )
    last_label = -math.inf
    for tick in sorted(ticks):
        x = px(tick)
        parts.append(f'<path class="axis" d="M{x:.1f} {upper + plot_h}v5"/>')
        if x - last_label >= 26:
            parts.append(
                f'<text x="{x:.1f}" y="{upper + plot_h + 18}" text-anchor="middle">'
                f"{esc(_tick_text(tick))}</text>"
            )
            last_label = x
    parts += [
        f'<path class="axis" d="M{left} {upper}V{upper + plot_h}H{left + plot_w}" '
        'fill="none"/>',
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">'
        f"{esc(x_label)}</text>",
        f'<text transform="translate(16 {upper + plot_h / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{esc(y_label)}</text>',
    ]
    for line in data:
        if not line.points:
            continue
        if line.scatter:
            # dots on a half-pixel grid, each drawn once: thousands of
            # iterations make a path of the distinct positions only
            x_scale = 2 * plot_w / (x_high - x_low)
            y_scale = 2 * plot_h / y_high
            x0, y0 = 2 * left - x_low * x_scale, 2 * (upper + plot_h)
            grid = dict.fromkeys(
                (round(x0 + x * x_scale), round(y0 - y * y_scale))
                for x, y in line.points
            )
            dots = "".join(f"M{x / 2:g} {y / 2:g}h0" for x, y in grid)
            parts.append(
                f'<path d="{dots}" stroke="{line.color}" stroke-width="4.5" '
                'stroke-linecap="round" stroke-opacity="0.75" fill="none"/>'
            )
            continue
        coords = [(px(x), py(y)) for x, y in line.points]
        polyline = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(
            f'<polyline points="{polyline}" fill="none" stroke="{line.color}" '
            'stroke-width="2.5"/>'
        )
        for (x, y), (vx, vy) in zip(coords, line.points, strict=True):
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{line.color}">'
                f"<title>{esc(line.label)}: {esc(_tick_text(vx))}, "
                f"{esc(_tick_text(vy))}</title></circle>"
            )
    parts.append("</svg>")
    return "\n".join(parts)


# --- report ------------------------------------------------------------------------


def _report_rows(entry: ReportEntry) -> list[list[str]]:
    """The ``table`` format's cells of one workload (action names unindented)."""
    extra = [render.format_number(entry.throughput), *entry.columns.values()]
    return [
        [
            row.name,
            *render.stats_cells(row),
            *extra,
        ]
        for row in entry.rows
    ]


def _row_attr(depth: int, name: str) -> str:
    """``<tr>`` attributes of a statistics row: nested rows' depth, the total."""
    if depth:
        return f' class="nested" data-depth="{depth}"'
    return ' class="total"' if name == TOTAL else ""


def durations_plot(workload: Workload) -> str:
    """Iteration durations against their start time (failed ones in red)."""
    if not workload.iterations:
        return ""
    start = min(it.timestamp for it in workload.iterations)
    failed = [
        (it.timestamp - start, it.duration) for it in workload.iterations if it.error
    ]
    ok = [
        (it.timestamp - start, it.duration)
        for it in workload.iterations
        if not it.error
    ]
    lines = [Line(f"successful ({len(ok)})", ok, OK_COLOR, scatter=True)]
    if failed:
        lines.append(Line(f"failed ({len(failed)})", failed, FAILED_COLOR, True))
    return chart(
        f"iteration durations: {workload.scenario_name}",
        "seconds since the first iteration started",
        "duration (sec)",
        lines,
        x_min=0.0,
        width=760,
    )


def _workload_section(entry: ReportEntry, anchor: str) -> list[str]:
    """Heading, table, summary, errors and plot of one workload."""
    workload = entry.workload
    title = render.heading(workload)
    header = [*render.COLUMNS, THROUGHPUT, *entry.columns]
    rows = _report_rows(entry)
    attrs = [_row_attr(row.depth, row.name) for row in entry.rows]
    depths = [row.depth for row in entry.rows]
    body = table(title, header, rows, row_attrs=attrs, indents=depths)
    summary = render.error_summary(workload)
    achieved, *note = render.load_lines(workload)
    parts = [
        f'<section class="workload" id="{anchor}">',
        body,
        f'<p class="summary">load duration: '
        f"{esc(render.format_number(workload.load_duration))} s, throughput: "
        f"{esc(render.format_number(entry.throughput))} iterations/s; "
        f"{len(workload.iterations)} iterations; SLA "
        f"{'passed' if workload.pass_sla else 'failed'}</p>",
        f'<p class="summary">{esc(achieved)}</p>',
        *(f'<p class="note">{esc(line)}</p>' for line in note),
        f'<p class="summary">{esc(summary[0])}</p>',
    ]
    if len(summary) > 1:
        items = "".join(f"<li>{esc(line.strip())}</li>" for line in summary[1:])
        parts.append(f'<ul class="errors">{items}</ul>')
    plot = durations_plot(workload)
    if plot:
        parts.append(f'<div class="plots">{plot}</div>')
    parts.append("</section>")
    return parts


def report_page(files: Sequence[FileEntries]) -> str:
    """The report page: a section per file, one per workload."""
    count = sum(len(item.entries) for item in files)
    title = f"rally-keystone-perf report ({count} workload{'' if count == 1 else 's'})"
    body: list[str] = []
    toc: list[str] = []
    sections: list[str] = []
    for f_index, item in enumerate(files):
        sections.append(f"<h2>{esc(item.file)}</h2>")
        sections.append(_config_line(item.config))
        sections += [
            f'<p class="note">{esc(w)}</p>' for w in config_warnings(item.config)
        ]
        if not item.entries:
            sections.append('<p class="meta">no workloads</p>')
        for w_index, entry in enumerate(item.entries):
            anchor = f"w{f_index + 1}-{w_index + 1}"
            toc.append(
                f'<li><a href="#{anchor}">{esc(render.heading(entry.workload))}</a>'
                "</li>"
            )
            sections += _workload_section(entry, anchor)
    body.append(
        f'<p class="meta">{len(files)} report file(s). Figures are Rally\'s own '
        "statistics (failed iterations included); durations in seconds.</p>"
    )
    if len(toc) > 1:
        body.append(f"<nav><ul>{''.join(toc)}</ul></nav>")
    return page(title, [*body, *sections])


def write_entries(files: Sequence[FileEntries], stream: TextIO) -> None:
    """Write the report page of computed :func:`~.formats.report_entries`."""
    stream.write(report_page(files))


# --- compare -----------------------------------------------------------------------


def _compare_section(group: ScenarioComparison) -> list[str]:
    """Heading and table of one matched workload."""
    title = group_title(group)
    rows = _group_rows(group)
    attrs = [' class="first-run"' if row[0] else "" for row in rows]
    verdict = COMPARE_COLUMNS.index("verdict")
    classes = [[""] * verdict + [VERDICT_CLASSES.get(row[verdict], "")] for row in rows]
    return [
        '<section class="group">',
        table(title, COMPARE_COLUMNS, rows, TEXT_COLUMNS, attrs, classes),
        *(f'<p class="note">{esc(note)}</p>' for note in group.notes),
        "</section>",
    ]


def series_plots(rows: Sequence[SeriesRow]) -> list[str]:
    """Latency percentiles, throughput and success rate against concurrency."""
    levels = [row.concurrency for row in rows if _finite(row.concurrency)]

    def points(field: str, scale: float = 1.0) -> list[tuple[float, float]]:
        return [
            (row.concurrency, getattr(row, field) * scale)
            for row in rows
            if _finite(row.concurrency) and _finite(getattr(row, field))
        ]

    latency = [
        Line("median", points("median"), COLORS[0]),
        Line("90 percentile", points("p90"), COLORS[1]),
        Line("95 percentile", points("p95"), COLORS[2]),
    ]
    plots = [
        chart(
            "latency (total) vs concurrency",
            "concurrency",
            "seconds",
            latency,
            x_ticks=levels,
            width=SERIES_PLOT_WIDTH,
        ),
        chart(
            "throughput vs concurrency",
            "concurrency",
            "iterations/s",
            [Line("throughput", points("throughput"), COLORS[3])],
            x_ticks=levels,
            width=SERIES_PLOT_WIDTH,
        ),
        chart(
            "success rate vs concurrency",
            "concurrency",
            "success (%)",
            [Line("success", points("success", 100.0), COLORS[4])],
            x_ticks=levels,
            y_max=100.0,
            width=SERIES_PLOT_WIDTH,
        ),
    ]
    return [plot for plot in plots if plot]


def _series_section(config: str, scenario: str, rows: Sequence[SeriesRow]) -> list[str]:
    """Table and plots of one latency-vs-concurrency series."""
    title = f"latency vs concurrency: {config}, {scenario}"
    parts = [
        '<section class="series">',
        table(title, SERIES_COLUMNS, _series_rows(rows), ()),
    ]
    plots = series_plots(rows)
    if plots:
        parts.append('<div class="plots">' + "\n".join(plots) + "</div>")
    parts.append("</section>")
    return parts


def compare_page(
    comparison: Comparison, series: Sequence[SeriesRow], runs: Sequence[Run]
) -> str:
    """The comparison page: intro, a table per matched workload, the series."""
    title = f"rally-keystone-perf compare (baseline {comparison.baseline})"
    intro = _intro(comparison, runs)
    body = [f'<p class="meta">{esc(intro[0])}</p>']
    if runs:
        items = "".join(
            f"<li><b>{esc(run.label)}</b>: "
            f"{esc(', '.join(str(path) for path in run.paths))}"
            f"{_config_line(run.config)}</li>"
            for run in runs
        )
        body.append(f"<h2>runs</h2><ul>{items}</ul>")
    body.append("<h2>comparison</h2>")
    if not comparison.groups:
        body.append('<p class="meta">no workloads to compare</p>')
    for group in comparison.groups:
        body += _compare_section(group)
    groups = series_groups(series)
    if groups:
        body.append("<h2>latency vs concurrency</h2>")
        for (config, scenario), rows in groups.items():
            body += _series_section(config, scenario, rows)
    return page(title, body)


def write_compare(
    comparison: Comparison,
    stream: TextIO,
    series: Sequence[SeriesRow] = (),
    runs: Sequence[Run] = (),
) -> None:
    """Write the comparison page."""
    stream.write(compare_page(comparison, series, runs))
