"""A study's page: the seed's table beside ours, the ratios, what differs.

The same parts in every format: a heading with the seed's source, each
config in the seed's words and ours, the rows table (the seed's figures and
ours per config and level, with the concurrency reached and the bottleneck
measured), the ratios table (the seed's, ours, a verdict), what differs
from the seed and the seed's conclusion. Text (a table per config within 120
columns, the bottlenecks under it), markdown (``study-<seed>.md``) and HTML
(``study-<seed>.html``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from rally_keystone_perf.report.figures.study import RatioRow, StudyRow
from rally_keystone_perf.report.figures.study_capacity import CapacityPart
from rally_keystone_perf.report.writers import study_capacity
from rally_keystone_perf.report.writers.common import (
    INDENT,
    format_success,
    markdown_table,
    md_cell,
    stacked_table,
    text_table,
)
from rally_keystone_perf.report.writers.html import kit, study_plots
from rally_keystone_perf.report.writers.text import wrap
from rally_keystone_perf.studies.model import Study

MISSING = "-"
UNMEASURED = "not measured"  # a row's bottleneck cell when ours is missing
RATIO_COLUMNS = ("ratio", "concurrency", "seed", "ours", "verdict")
LEFT = ("config", "action", "seed says", "bottleneck")  # text columns


@dataclass(frozen=True)
class StudyPage:
    """What a study's page shows."""

    study: Study
    size: str
    rows: list[StudyRow]
    ratios: list[RatioRow]
    measured_in: str = ""  # how ours were measured (rounds taken in turns)
    capacity: CapacityPart | None = None  # its capacity rows (--capacity)


def _figure(name: str, value: float | None) -> str:
    if value is None:
        return MISSING
    if name == "success":
        return format_success(value)
    if name == "count":
        return f"{value:g}"
    if name == "throughput":
        return f"{value:.1f}/s"
    return f"{value:.3f}"


def _seed_columns(page: StudyPage) -> list[str]:
    """The compared figures the seed gave in any row."""
    return [
        name
        for name in page.study.compared
        if any(name in row.seed.figures for row in page.rows)
    ]


def rows_table(page: StudyPage) -> tuple[list[str], list[list[str]]]:
    """Header and cells: config, level (and action), seed and ours per
    figure, reached, throughput, bottleneck (and the seed's words)."""
    seeded = _seed_columns(page)
    words = any(row.seed.outcome for row in page.rows)
    actions = any(row.seed.action for row in page.rows)
    rate = "throughput" not in page.study.compared  # else among the figures
    header = ["config", "concurrency", *(["action"] if actions else [])]
    for name in page.study.compared:
        header += [f"seed {name}"] if name in seeded else []
        header.append(f"ours {name}")
    header += [*(["seed says"] if words else []), "in flight"]
    header += [*(["iter/s"] if rate else []), "bottleneck"]
    compared = page.study.compared
    cells = [
        _row_cells(row, compared, seeded, (words, actions, rate)) for row in page.rows
    ]
    totals = {
        (r.seed.config, r.seed.concurrency) for r in page.rows if not r.seed.action
    }
    for row, line in zip(page.rows, cells, strict=True):
        if row.seed.action and (row.seed.config, row.seed.concurrency) in totals:
            width = 3 if rate else 2  # its workload's cells: on its total's row
            line[-width:] = [""] * width
    return header, cells


def _row_cells(
    row: StudyRow,
    compared: Sequence[str],
    seeded: list[str],
    shown: tuple[bool, bool, bool],
) -> list[str]:
    """One row's cells; ``shown``: the seed's words, action, iter/s columns."""
    words, actions, rate = shown
    ours = row.ours
    line = [row.seed.config, str(row.seed.concurrency)]
    line += [row.seed.action or "total"] if actions else []
    for name in compared:
        if name in seeded:
            line.append(_figure(name, row.seed.figures.get(name)))
        line.append(_figure(name, ours.figures.get(name) if ours else None))
    line += [row.seed.outcome] if words else []
    line.append(str(ours.peak) if ours else MISSING)
    if rate:
        line.append(f"{ours.throughput:.2f}" if ours and ours.throughput else MISSING)
    line.append((ours.bottleneck or MISSING) if ours else UNMEASURED)
    return line


def _interval(row: RatioRow) -> str:
    if row.low is None or row.high is None:
        return MISSING
    return f"{row.low:.2f}-{row.high:.2f}x"


def ratios_table(page: StudyPage) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the ratios (x: the slower's avg over the
    faster's), with the 95% interval when ours are from rounds and the
    drift when measured (rounds, or visits A-B-A)."""
    in_rounds = any(row.rounds is not None for row in page.ratios)
    with_drift = in_rounds or any(row.drift is not None for row in page.ratios)
    header = list(RATIO_COLUMNS)
    header[-1:-1] = ["95% CI"] * in_rounds + ["drift"] * with_drift
    cells = []
    for row in page.ratios:
        line = [
            row.name,
            str(row.concurrency),
            f"{row.seed:.2f}x" if row.seed is not None else row.seed_words or MISSING,
            f"{row.ours:.2f}x" if row.ours is not None else MISSING,
        ]
        if in_rounds:
            line.append(_interval(row))
        if with_drift:
            line.append(f"{row.drift:.0%}" if row.drift is not None else MISSING)
        cells.append([*line, row.verdict])
    return header, cells


def intro(page: StudyPage) -> list[str]:
    """Title, source, size and each config in the seed's words."""
    study = page.study
    lines = [
        f"study {study.seed} ({page.size}): {study.title}",
        f"the seed's table: {study.source}",
    ]
    for config in study.configs:
        options = ", ".join(f"{k} {v}" for k, v in config.options.items())
        here = f"--mode {config.mode}" + (f", {options}" if options else "")
        lines.append(f"  {config.label}: {config.seed_label} (here: {here})")
    return lines


def outro(page: StudyPage) -> list[str]:
    """What differs from the seed, its conclusion and what a ratio is."""
    lines = [f"ours: {page.measured_in}"] if page.measured_in else []
    lines += [
        f"differs from the seed: {page.study.differs}",
        f"the seed concluded: {page.study.conclusion}",
    ]
    if page.ratios:
        lines.append(
            "ratios: how much faster (the slower deployment's average over the "
            "faster's, or the faster's throughput over the slower's); ours only "
            "from this study's own runs"
        )
    if any(row.rounds is not None for row in page.ratios):
        lines.append(
            "95% CI: the t-interval of the rounds' ratios (each round measured "
            "every config minutes apart at most); drift: how far one config's "
            "figure moved between rounds, what a ratio of runs taken apart "
            "could be off by"
        )
    elif any(row.drift is not None for row in page.ratios):
        lines.append(
            "drift: how far one config's figure moved between its two visits "
            "(A-B-A), what the ratio could be off by; undecided where that "
            "changes the verdict"
        )
    return lines


def write_text(page: StudyPage, stream: TextIO) -> None:
    """The study as terminal tables within 120 columns: under each config's
    line its rows (:func:`config_table`), then the ratios, each line wrapped."""
    title, source, *configs = intro(page)
    lines = [title, *wrap(source)]
    header, cells = rows_table(page)
    for config, line in zip(page.study.configs, configs, strict=True):
        rows = [row for row in cells if row[0] == config.label]
        if rows:
            lines += ["", *wrap(line.strip()), *config_table(header, rows)]
    lines.append("")
    if page.ratios:
        lines.append(text_table(*ratios_table(page), ("ratio", "verdict")).get_string())
    if page.capacity is not None:
        for line in study_capacity.text_lines(page.capacity):
            lines += [line] if not line or "\n" in line else wrap(line)
    for line in outro(page):
        lines += wrap(line)
    stream.write("\n".join(lines) + "\n")


def config_table(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    """One config's rows of :func:`rows_table`: without the config (its line
    is above) and the seed's columns it has no figure in, names on two
    lines, the bottleneck of each row on a line under the table."""
    shown = [
        n
        for n, name in enumerate(header[1:-1], start=1)
        if not name.startswith("seed ") or any(row[n] != MISSING for row in rows)
    ]
    table = stacked_table(
        [header[n] for n in shown], [[row[n] for n in shown] for row in rows], LEFT
    )
    actions = "action" in header
    notes = []
    for row in rows:
        found = row[-1]
        if found in ("", MISSING):
            continue
        name = f"c{row[1]}" + (f" {row[2]}" if actions else "")
        said = found if found == UNMEASURED else f"bottleneck {found}"
        notes += wrap(f"{name}: {said}", INDENT)
    return [table, *notes]


def write_markdown(page: StudyPage, stream: TextIO) -> None:
    """The study as markdown (its README section's shape)."""
    first, *configs = intro(page)
    parts = [
        f"## {md_cell(first)}",
        "\n".join(f"- {md_cell(c.strip())}" for c in configs),
    ]
    parts.append(markdown_table(*rows_table(page), LEFT))
    if page.ratios:
        parts.append(markdown_table(*ratios_table(page), ("ratio", "verdict")))
    if page.capacity is not None:
        parts += study_capacity.markdown_parts(page.capacity)
    parts += [md_cell(line) for line in outro(page)]
    stream.write("\n\n".join(parts) + "\n")


def html_page(page: StudyPage) -> str:
    """The study as one self-contained HTML page."""
    first, *rest = intro(page)
    body = [f'<p class="meta">{kit.esc(line.strip())}</p>' for line in rest]
    header, cells = rows_table(page)
    body.append(
        kit.table(
            "the seed's rows and ours",
            header,
            cells,
            LEFT,
        )
    )
    plots = study_plots.level_plots(page.study, page.rows)
    plots += study_plots.node_plots(page.study, page.rows)
    if plots:
        body.append(f'<div class="plots">{"".join(plots)}</div>')
    if page.ratios:
        header, cells = ratios_table(page)
        body.append(kit.table("ratios", header, cells, ("ratio", "verdict")))
    if page.capacity is not None:
        body += study_capacity.html_parts(page.capacity)
    body += [f'<p class="summary">{kit.esc(line)}</p>' for line in outro(page)]
    return kit.page(first, body)


def write_html(page: StudyPage, stream: TextIO) -> None:
    """Write :func:`html_page`."""
    stream.write(html_page(page))
