"""The ``releases`` page as a document: each release's figures, a plot of
the medians by release, each pair's verdict, the notes; when the releases
were counted, each release's instructions and SQL statements per request,
each pair's verdict by instructions, and the plot of both relative to the
oldest release.

Printed within 120 columns, and written as markdown, a self-contained HTML
page and the plot alone as SVG (``releases.svg``, for the docs), by the
renderers (:mod:`rally_keystone_perf.report.writers.render`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rally_keystone_perf.report.blocks.model import (
    Blank,
    Block,
    Document,
    Lines,
    Plot,
    Series,
    Table,
    columns,
)
from rally_keystone_perf.report.figures import verdicts
from rally_keystone_perf.report.figures.releases import ReleaseCounts, ReleasesPage

MISSING = "-"
RELEASE_COLUMNS = columns(
    "action:text; release:text; median:seconds; p95:seconds; per second:rate",
    "success:success; count:count",
)
PAIR_COLUMNS = columns(
    "action:text; pair:text; ratio:ratio; 95% CI:interval; drift:percent; verdict:text"
)
COUNT_COLUMNS = columns(
    "action:text; release:text; instructions:millions; layouts within:text",
    "reads:general; writes:general; transaction control:general",
    "PRAGMA and other:general",
)
COUNT_PAIR_COLUMNS = columns(
    "action:text; pair:text; instructions:fixed3; queries:difference; verdict:text"
)
EXPLAINED_COUNTS = (
    "counts: instructions and SQL statements per request of each release's "
    "Keystone in one process (callgrind; SQLite in it, bcrypt at {rounds} "
    "rounds; the mean of {layouts} memory layouts a workload), statements in a "
    "replay outside valgrind; instructions: the newer release's count over the "
    "older's, read as it is (counts do not drift), slower or faster past the "
    "larger of the layouts' spread and 1%; queries: reads and writes per "
    "request, the newer's less the older's; what the counts do not cover: a "
    "database server's own work, memcached, the network"
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


def count_table(counts: ReleaseCounts) -> Table:
    """Each release's instructions and statements per request per action."""
    rows: list[Sequence[object]] = []
    for row in counts.rows:
        found = row.found
        if found is None:
            rows.append([_short(row.action), row.release, *[MISSING] * 6])
            continue
        sql = found.statements or {}
        rows.append(
            [_short(row.action), row.release, found.per_request, f"{found.spread:.2%}"]
            + [sql.get(kind) for kind in ("read", "write", "transaction")]
            + [sql.get("pragma", 0) + sql.get("other", 0) if sql else None]
        )
    return Table(COUNT_COLUMNS, rows, "each release's counts per request")


def count_pair_table(counts: ReleaseCounts) -> Table:
    """The newer's instructions over the older's, queries more, verdict."""
    rows = [
        [_short(pair.action), f"{pair.newer} vs {pair.older}", pair.ratio]
        + [pair.queries, verdicts.describe(pair.verdict, subject="")]
        for pair in counts.pairs
    ]
    return Table(
        COUNT_PAIR_COLUMNS, rows, "each release against the one before, counted"
    )


def plot(page: ReleasesPage) -> Plot:
    """Each action's median by release, the releases in order at 1, 2, ...
    (two releases of one series, 27.0.0 and 27.1.0, stay apart); when the
    releases were counted, each action's median (a line) and instructions
    (dots, its color), each over the oldest release's."""
    counts = page.counts
    place = {release: float(n) for n, release in enumerate(page.releases, 1)}
    series = []
    for color, action in enumerate(dict.fromkeys(row.action for row in page.rows)):
        points = [
            (place[row.release], row.ours.figures.get("median"))
            for row in page.rows
            if row.action == action and row.ours is not None
        ]
        known = [(x, y) for x, y in points if y is not None]
        if counts is None:
            series.append(Series(_short(action), known))
            continue
        counted = [
            (place[row.release], row.found.per_request)
            for row in counts.rows
            if row.action == action and row.found is not None
        ]
        series += [
            Series(f"{_short(action)} median", _relative(known), color),
            Series(
                f"{_short(action)} instructions", _relative(counted), color, True, True
            ),
        ]
    named = ", ".join(f"{int(x)} {release}" for release, x in place.items())
    ticks = sorted(place.values())
    if counts is None:
        title, y_label = "median by Keystone release", "median (s)"
    else:
        title = "median and instructions by Keystone release"
        y_label = "over the oldest release's"
    return Plot(title, f"release ({named})", y_label, series, ticks)


def _relative(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Points over the first one's y."""
    known = [(x, y) for x, y in points if y]
    return [(x, y / known[0][1]) for x, y in known] if known else []


def document(page: ReleasesPage) -> Document:
    """The page: both tables (a blank line between them in the terminal),
    the plot between them, the counts' tables when counted, the notes."""
    notes = [
        f"left out: {f.release} (does not {f.stage}): {f.reason}" for f in page.failures
    ]
    counts = page.counts
    blocks: list[Block] = [release_table(page)]
    blocks += [plot(page), Blank()]
    blocks += [pair_table(page)]
    if counts is not None:
        blocks += [Blank(), count_table(counts), Blank(), count_pair_table(counts)]
        notes += [f"not counted: {r}: {why}" for r, why in counts.failed.items()]
    notes += [*page.notes, EXPLAINED]
    if counts is not None:
        notes.append(
            EXPLAINED_COUNTS.format(rounds=counts.hash_rounds, layouts=counts.layouts)
        )
    return Document(page.title, (*blocks, Lines(notes)))
