"""The ``releases`` page: each release's figures, each pair's verdict, a plot.

Printed within 120 columns, and written as markdown, a self-contained HTML
page and the plot alone as SVG (``releases.svg``, for the docs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from rally_keystone_perf.report.figures import verdicts
from rally_keystone_perf.report.figures.releases import PairRow, ReleaseRow
from rally_keystone_perf.report.writers.common import (
    format_number,
    format_success,
    markdown_table,
    md_cell,
    text_table,
)
from rally_keystone_perf.report.writers.html import kit
from rally_keystone_perf.report.writers.html.charts import COLORS, Line, chart
from rally_keystone_perf.report.writers.text import wrap

if TYPE_CHECKING:  # pragma: no cover (a type only: report/ runs nothing of run/)
    from rally_keystone_perf.run.releases import Failure

MISSING = "-"
LEFT = ("action", "release", "pair", "verdict")
SVG_NAMESPACE = 'xmlns="http://www.w3.org/2000/svg" '


@dataclass(frozen=True)
class ReleasesPage:
    """What the page shows."""

    title: str
    releases: Sequence[str]
    rows: Sequence[ReleaseRow]
    pairs: Sequence[PairRow]
    failures: Sequence[Failure] = ()
    notes: Sequence[str] = field(default_factory=tuple)  # how it was measured


def _short(action: str) -> str:
    return action.removeprefix("keystone.")


def rows_table(page: ReleasesPage) -> tuple[list[str], list[list[str]]]:
    """Each release's figures per action (seconds; requests a second)."""
    header = ["action", "release", "median", "p95", "per second", "success", "count"]
    cells = []
    for row in page.rows:
        ours = row.ours
        if ours is None:
            cells.append([_short(row.action), row.release, *[MISSING] * 5])
            continue
        rate = ours.throughput
        cells.append(
            [
                _short(row.action),
                row.release,
                format_number(ours.figures.get("median")),
                format_number(ours.figures.get("p95")),
                MISSING if rate is None else f"{rate:.1f}",
                format_success(ours.figures.get("success")),
                str(int(ours.figures.get("count") or 0)),
            ]
        )
    return header, cells


def pairs_table(page: ReleasesPage) -> tuple[list[str], list[list[str]]]:
    """The newer's median over the older's, with its interval and drift."""
    header = ["action", "pair", "ratio", "95% CI", "drift", "verdict"]
    cells = []
    for pair in page.pairs:
        interval = (
            MISSING
            if pair.low is None or pair.high is None
            else f"{pair.low:.2f}-{pair.high:.2f}x"
        )
        cells.append(
            [
                _short(pair.action),
                f"{pair.newer} vs {pair.older}",
                MISSING if pair.ratio is None else f"{pair.ratio:.2f}x",
                interval,
                MISSING if pair.drift is None else f"{pair.drift:.0%}",
                verdicts.describe(pair.verdict, subject=""),
            ]
        )
    return header, cells


def outro(page: ReleasesPage) -> list[str]:
    """The releases left out, how it was measured, what a ratio is."""
    lines = [
        f"left out: {f.release} (does not {f.stage}): {f.reason}" for f in page.failures
    ]
    lines += list(page.notes)
    lines.append(
        "ratio: the newer release's median over the older's, taken within each "
        "round; 95% CI: the t-interval of the rounds' ratios; drift: how far one "
        "release's median moved between rounds; slower or faster only when the "
        "whole interval says so, not measurable when it reaches 25% past no change "
        "(the A/B's verdict)"
    )
    return lines


def plot(page: ReleasesPage) -> str:
    """Each action's median by release, the releases in order at 1, 2, ...
    (two releases of one series, 27.0.0 and 27.1.0, stay apart), as SVG."""
    place = {release: float(n) for n, release in enumerate(page.releases, 1)}
    lines = []
    for index, action in enumerate(dict.fromkeys(row.action for row in page.rows)):
        points = [
            (place[row.release], row.ours.figures.get("median"))
            for row in page.rows
            if row.action == action and row.ours is not None
        ]
        known = [(x, y) for x, y in points if y is not None]
        lines.append(Line(_short(action), known, COLORS[index % len(COLORS)]))
    named = ", ".join(f"{int(x)} {release}" for release, x in place.items())
    return chart(
        "median by Keystone release",
        f"release ({named})",
        "median (s)",
        lines,
        x_ticks=sorted(place.values()),
    )


def write_text(page: ReleasesPage, stream: TextIO) -> None:
    """Both tables and the notes, within 120 columns."""
    lines = [page.title, text_table(*rows_table(page), LEFT).get_string(), ""]
    lines.append(text_table(*pairs_table(page), LEFT).get_string())
    for line in outro(page):
        lines += wrap(line)
    stream.write("\n".join(lines) + "\n")


def write_markdown(page: ReleasesPage, stream: TextIO) -> None:
    """Both tables and the notes as markdown."""
    parts = [f"## {md_cell(page.title)}", markdown_table(*rows_table(page), LEFT)]
    parts.append(markdown_table(*pairs_table(page), LEFT))
    parts += [md_cell(line) for line in outro(page)]
    stream.write("\n\n".join(parts) + "\n")


def write_html(page: ReleasesPage, stream: TextIO) -> None:
    """One self-contained page: the tables, the plot, the notes."""
    body = [kit.table("each release", *rows_table(page), LEFT)]
    drawn = plot(page)
    if drawn:
        body.append(f'<div class="plots">{drawn}</div>')
    body.append(
        kit.table("each release against the one before", *pairs_table(page), LEFT)
    )
    body += [f'<p class="summary">{kit.esc(line)}</p>' for line in outro(page)]
    stream.write(kit.page(page.title, body))


def write_svg(page: ReleasesPage, stream: TextIO) -> None:
    """The plot alone, a standalone SVG file with the plots' style sheet
    (empty: nothing to plot)."""
    drawn = plot(page)
    if not drawn:
        return
    head, _, rest = drawn.partition("\n")
    style = f"<style>{kit.PLOT_STYLE}</style>"
    head = head.replace("<svg ", f"<svg {SVG_NAMESPACE}", 1)
    stream.write(f"{head}\n{style}\n{rest}\n")
