"""A study's page: the seed's table beside ours, the ratios, what differs.

The same parts in every format: a heading with the seed's source, each
config in the seed's words and ours, the rows table (the seed's figures and
ours per config and level, with the concurrency reached and the bottleneck
measured), the ratios table (the seed's, ours, a verdict), what differs
from the seed and the seed's conclusion. Text (120 columns but for the
bottleneck), markdown (``study-<seed>.md``) and HTML (``study-<seed>.html``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

from rally_keystone_perf.report.study import RatioRow, StudyRow
from rally_keystone_perf.report.writers.common import (
    format_success,
    markdown_table,
    md_cell,
    text_table,
)
from rally_keystone_perf.report.writers.html import kit
from rally_keystone_perf.studies.model import Study

MISSING = "-"
RATIO_COLUMNS = ("ratio", "concurrency", "seed", "ours", "verdict")


@dataclass(frozen=True)
class StudyPage:
    """What a study's page shows."""

    study: Study
    size: str
    rows: list[StudyRow]
    ratios: list[RatioRow]


def _figure(name: str, value: float | None) -> str:
    if value is None:
        return MISSING
    if name == "success":
        return format_success(value)
    if name == "count":
        return f"{value:g}"
    return f"{value:.3f}"


def _seed_columns(page: StudyPage) -> list[str]:
    """The compared figures the seed gave in any row."""
    return [
        name
        for name in page.study.compared
        if any(name in row.seed.figures for row in page.rows)
    ]


def rows_table(page: StudyPage) -> tuple[list[str], list[list[str]]]:
    """Header and cells: config, level, seed and ours per figure, reached,
    throughput, bottleneck (and the seed's words when it gave them)."""
    seeded = _seed_columns(page)
    words = any(row.seed.outcome for row in page.rows)
    header = ["config", "concurrency"]
    for name in page.study.compared:
        header += [f"seed {name}"] if name in seeded else []
        header.append(f"ours {name}")
    header += [*(["seed says"] if words else []), "in flight", "iter/s", "bottleneck"]
    cells = []
    for row in page.rows:
        ours = row.ours
        line = [row.seed.config, str(row.seed.concurrency)]
        for name in page.study.compared:
            if name in seeded:
                line.append(_figure(name, row.seed.figures.get(name)))
            line.append(_figure(name, ours.figures.get(name) if ours else None))
        line += [row.seed.outcome] if words else []
        line += [
            str(ours.peak) if ours else MISSING,
            f"{ours.throughput:.2f}" if ours and ours.throughput else MISSING,
            (ours.bottleneck or MISSING) if ours else "not measured",
        ]
        cells.append(line)
    return header, cells


def ratios_table(page: StudyPage) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the ratios (x: the slower's avg over the faster's)."""
    cells = [
        [
            row.name,
            str(row.concurrency),
            f"{row.seed:.2f}x" if row.seed is not None else row.seed_words or MISSING,
            f"{row.ours:.2f}x" if row.ours is not None else MISSING,
            row.verdict,
        ]
        for row in page.ratios
    ]
    return list(RATIO_COLUMNS), cells


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
    """What differs from the seed and its conclusion."""
    return [
        f"differs from the seed: {page.study.differs}",
        f"the seed concluded: {page.study.conclusion}",
        "ratios: how much faster (the slower deployment's average over the "
        "faster's); ours only from this study's own runs",
    ]


def write_text(page: StudyPage, stream: TextIO) -> None:
    """The study as terminal tables."""
    parts = [
        *intro(page),
        text_table(
            *rows_table(page), ("config", "seed says", "bottleneck")
        ).get_string(),
    ]
    if page.ratios:
        parts.append(text_table(*ratios_table(page), ("ratio", "verdict")).get_string())
    stream.write("\n".join([*parts, *outro(page)]) + "\n")


def write_markdown(page: StudyPage, stream: TextIO) -> None:
    """The study as markdown (its README section's shape)."""
    first, *configs = intro(page)
    parts = [
        f"## {md_cell(first)}",
        "\n".join(f"- {md_cell(c.strip())}" for c in configs),
    ]
    parts.append(
        markdown_table(*rows_table(page), ("config", "seed says", "bottleneck"))
    )
    if page.ratios:
        parts.append(markdown_table(*ratios_table(page), ("ratio", "verdict")))
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
            ("config", "seed says", "bottleneck"),
        )
    )
    if page.ratios:
        header, cells = ratios_table(page)
        body.append(kit.table("ratios", header, cells, ("ratio", "verdict")))
    body += [f'<p class="summary">{kit.esc(line)}</p>' for line in outro(page)]
    return kit.page(first, body)


def write_html(page: StudyPage, stream: TextIO) -> None:
    """Write :func:`html_page`."""
    stream.write(html_page(page))


WRITERS = {"table": write_text, "markdown": write_markdown, "html": write_html}
