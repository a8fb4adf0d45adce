"""The ``releases`` page as a document: each release's figures, a plot of
the medians by release, each pair's verdict, the notes.

Printed within 120 columns, and written as markdown, a self-contained HTML
page and the plot alone as SVG (``releases.svg``, for the docs), by the
renderers (:mod:`rally_keystone_perf.report.writers.render`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rally_keystone_perf.report.blocks.model import (
    Blank,
    Document,
    Lines,
    Plot,
    Series,
    Table,
    columns,
)
from rally_keystone_perf.report.figures import verdicts
from rally_keystone_perf.report.figures.releases import ReleasesPage

MISSING = "-"
RELEASE_COLUMNS = columns(
    "action:text; release:text; median:seconds; p95:seconds; per second:rate",
    "success:success; count:count",
)
PAIR_COLUMNS = columns(
    "action:text; pair:text; ratio:ratio; 95% CI:interval; drift:percent; verdict:text"
)
EXPLAINED = (
    "ratio: the newer release's median over the older's, taken within each "
    "round; 95% CI: the t-interval of the rounds' ratios; drift: how far one "
    "release's median moved between rounds; slower or faster only when the "
    "whole interval says so, not measurable when it reaches 25% past no change "
    "(the A/B's verdict)"
)


def _short(action: str) -> str:
    return action.removeprefix("keystone.")


def release_table(page: ReleasesPage) -> Table:
    """Each release's figures per action (seconds; requests a second)."""
    rows: list[Sequence[object]] = []
    for row in page.rows:
        ours = row.ours
        if ours is None:
            rows.append([_short(row.action), row.release, *[MISSING] * 5])
            continue
        figures = ours.figures
        rows.append(
            [_short(row.action), row.release, figures.get("median"), figures.get("p95")]
            + [ours.throughput, figures.get("success"), figures.get("count")]
        )
    return Table(RELEASE_COLUMNS, rows, "each release")


def pair_table(page: ReleasesPage) -> Table:
    """The newer's median over the older's, with its interval and drift."""
    rows = [
        [_short(pair.action), f"{pair.newer} vs {pair.older}", pair.ratio]
        + [(pair.low, pair.high), pair.drift]
        + [verdicts.describe(pair.verdict, subject="")]
        for pair in page.pairs
    ]
    return Table(PAIR_COLUMNS, rows, "each release against the one before")


def plot(page: ReleasesPage) -> Plot:
    """Each action's median by release, the releases in order at 1, 2, ...
    (two releases of one series, 27.0.0 and 27.1.0, stay apart)."""
    place = {release: float(n) for n, release in enumerate(page.releases, 1)}
    series = []
    for action in dict.fromkeys(row.action for row in page.rows):
        points = [
            (place[row.release], row.ours.figures.get("median"))
            for row in page.rows
            if row.action == action and row.ours is not None
        ]
        known = [(x, y) for x, y in points if y is not None]
        series.append(Series(_short(action), known))
    named = ", ".join(f"{int(x)} {release}" for release, x in place.items())
    ticks = sorted(place.values())
    return Plot(
        "median by Keystone release", f"release ({named})", "median (s)", series, ticks
    )


def document(page: ReleasesPage) -> Document:
    """The page: both tables (a blank line between them in the terminal),
    the plot between them, the notes."""
    notes = [
        f"left out: {f.release} (does not {f.stage}): {f.reason}" for f in page.failures
    ]
    notes += [*page.notes, EXPLAINED]
    return Document(
        page.title,
        (release_table(page), plot(page), Blank(), pair_table(page), Lines(notes)),
    )
