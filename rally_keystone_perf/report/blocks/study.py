"""A study's page as a document: the seed's table beside ours, the ratios,
what differs.

The same parts in every format: a heading with the seed's source, each
config in the seed's words and ours, the rows table (the seed's figures and
ours per config and level, with the concurrency reached and the bottleneck
measured), the plots (:mod:`rally_keystone_perf.report.blocks.study_plots`),
the ratios table (the seed's, ours, a verdict; the instruction ratio
beside where the configs were counted:
:mod:`rally_keystone_perf.report.blocks.study_counts`), the capacity part
(:mod:`rally_keystone_perf.report.blocks.study_capacity`), what differs from
the seed and the seed's conclusion. The terminal has a table per config
within 120 columns, the bottlenecks under it; markdown (``study-<seed>.md``)
and HTML (``study-<seed>.html``) one table.
"""

from __future__ import annotations

from collections.abc import Sequence

from rally_keystone_perf.report.blocks import study_capacity, study_counts, study_plots
from rally_keystone_perf.report.blocks.model import (
    NUMBER,
    TEXT,
    Blank,
    Block,
    Cell,
    Column,
    Document,
    Lines,
    Only,
    Table,
)
from rally_keystone_perf.report.figures.study import StudyRow
from rally_keystone_perf.report.figures.study_page import StudyPage

MISSING = "-"
UNMEASURED = "not measured"  # a row's bottleneck cell when ours is missing
FIGURE_FORMATS = {"success": "success", "count": "general", "throughput": "per second"}
LEFT = ("config", "action", "seed says", "bottleneck")  # text columns


def _seed_columns(page: StudyPage) -> list[str]:
    """The compared figures the seed gave in any row."""
    return [
        name
        for name in page.study.compared
        if any(name in row.seed.figures for row in page.rows)
    ]


def rows_table(page: StudyPage) -> Table:
    """Config, level (and action), seed and ours per figure, reached,
    throughput, bottleneck (and the seed's words)."""
    seeded = _seed_columns(page)
    words = any(row.seed.outcome for row in page.rows)
    actions = any(row.seed.action for row in page.rows)
    rate = "throughput" not in page.study.compared  # else among the figures
    columns = [Column("config", TEXT), Column("concurrency")]
    columns += [Column("action", TEXT)] * actions
    for name in page.study.compared:
        fmt = FIGURE_FORMATS.get(name, "fixed3")
        sides = ["seed", "ours"] if name in seeded else ["ours"]
        columns += [Column(f"{side} {name}", NUMBER, fmt, MISSING) for side in sides]
    columns += [Column("seed says", TEXT)] * words + [Column("in flight")]
    columns += [Column("iter/s", fmt="fixed2")] * rate + [Column("bottleneck", TEXT)]
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
    return Table(columns, cells, "the seed's rows and ours")


def _row_cells(
    row: StudyRow,
    compared: Sequence[str],
    seeded: list[str],
    shown: tuple[bool, bool, bool],
) -> list[Cell]:
    """One row's cells; ``shown``: the seed's words, action, iter/s columns."""
    words, actions, rate = shown
    ours = row.ours
    line: list[Cell] = [row.seed.config, row.seed.concurrency]
    line += [row.seed.action or "total"] if actions else []
    for name in compared:
        if name in seeded:
            line.append(row.seed.figures.get(name))
        line.append(ours.figures.get(name) if ours else None)
    line += [row.seed.outcome] if words else []
    line.append(ours.peak if ours else MISSING)
    if rate:
        line.append((ours.throughput or None) if ours else None)
    line.append((ours.bottleneck or MISSING) if ours else UNMEASURED)
    return line


def config_table(table: Table, label: str) -> list[Block]:
    """One config's rows of :func:`rows_table` for the terminal: without the
    config (its line is above) and the seed's columns it has no figure in,
    names on two lines, the bottleneck of each row on a line under it."""
    rows = [row for row in table.rows if row[0] == label]
    names = [column.name for column in table.columns]
    kept = [
        n
        for n, name in enumerate(names[1:-1], start=1)
        if not name.startswith("seed ") or any(row[n] is not None for row in rows)
    ]
    shown = Table(
        [table.columns[n] for n in kept],
        [[row[n] for n in kept] for row in rows],
        stacked=True,
    )
    notes = []
    for row in rows:
        found = row[-1]
        if found in ("", MISSING):
            continue
        name = f"c{row[1]}" + (f" {row[2]}" if "action" in names else "")
        said = found if found == UNMEASURED else f"bottleneck {found}"
        notes.append(f"{name}: {said}")
    return [shown, Lines(notes, indent=1)]


def ratios_table(page: StudyPage) -> Table:
    """The ratios (x: the slower's avg over the faster's), with the 95%
    interval when ours are from rounds and the drift when measured (rounds,
    or visits A-B-A)."""
    in_rounds = any(row.rounds is not None for row in page.ratios)
    with_drift = in_rounds or any(row.drift is not None for row in page.ratios)
    columns = [Column("ratio", TEXT), Column("concurrency")]
    columns += [Column("seed", fmt="ratio"), Column("ours", fmt="ratio")]
    columns += [Column("95% CI", fmt="interval")] * in_rounds
    columns += [Column("drift", fmt="percent")] * with_drift
    counts = page.counts
    counted = counts is not None and any(r.ratio for r in counts.ratios)
    columns += [Column("instructions", fmt="ratio")] * counted
    rows = []
    for row in page.ratios:
        line = [row.name, row.concurrency, study_capacity.seed_cell(row), row.ours]
        line += [(row.low, row.high)] * in_rounds + [row.drift] * with_drift
        found = counts.of(row.name) if counts is not None else None
        line += [found.ratio if found else None] * counted
        rows.append([*line, row.verdict])
    return Table([*columns, Column("verdict", TEXT)], rows, "ratios")


def intro(page: StudyPage) -> list[str]:
    """Title, source, size and each config in the seed's words and ours."""
    study = page.study
    lines = [
        f"study {study.seed} ({page.size}): {study.title}",
        f"the seed's table: {study.source}",
    ]
    for config in study.configs:
        options = ", ".join(f"{k} {v}" for k, v in config.options.items())
        here = f"--mode {config.mode}" + (f", {options}" if options else "")
        lines.append(f"{config.label}: {config.seed_label} (here: {here})")
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


def _terminal(page: StudyPage, table: Table) -> list[Block]:
    """The terminal's part before the ratios: the source, then under each
    measured config's line its rows (:func:`config_table`)."""
    _, source, *configs = intro(page)
    found: list[Block] = [Lines([source])]
    for config, line in zip(page.study.configs, configs, strict=True):
        if any(row[0] == config.label for row in table.rows):
            found += [Blank(), Lines([line]), *config_table(table, config.label)]
    return [*found, Blank()]


def document(page: StudyPage) -> Document:
    """The study's page (see the module's doc)."""
    title, *said = intro(page)
    table = rows_table(page)
    blocks: list[Block] = [
        Only(("table",), _terminal(page, table)),
        Only(("markdown", "html"), [Lines(said, bullets=True, style="meta"), table]),
        *study_plots.level_plots(page.study, page.rows),
        *study_plots.node_plots(page.study, page.rows),
    ]
    blocks += [ratios_table(page)] if page.ratios else []
    blocks += study_counts.blocks(page.counts)
    if page.capacity is not None:
        blocks += study_capacity.blocks(page.capacity)
    return Document(title, [*blocks, Lines(outro(page))])
