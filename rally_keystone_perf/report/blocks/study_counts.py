"""A study's ratios by instruction count: the table under the ratios, and
its explanation (:mod:`rally_keystone_perf.report.figures.study_counts`)."""

from __future__ import annotations

from collections.abc import Sequence

from rally_keystone_perf.report.blocks.model import Block, Lines, Table, columns
from rally_keystone_perf.report.figures import verdicts
from rally_keystone_perf.report.figures.study_counts import StudyCounts

COLUMNS = columns(
    "ratio:text; faster:millions; slower:millions; instructions:fixed3",
    "queries:difference; by instructions:text",
)
EXPLAINED = (
    "counted: instructions and SQL statements per request of the ratio's "
    "action, each config's Keystone in one process (callgrind; SQLite in it, "
    "bcrypt at {rounds} rounds; the mean of {layouts} memory layouts), "
    "statements in a replay outside valgrind; only for configs that differ by "
    "what stays inside Keystone's process (token provider, password hash "
    "rounds, cache disabled or request-local, keystone.conf); instructions: "
    "the slower config's count over the faster's, the time ratio's way round, "
    "read as it is (counts do not drift), more or fewer past the larger of the "
    "layouts' spread and 1%; queries: reads and writes per request, the "
    "slower's less the faster's; not covered: a database server's own work, "
    "memcached, the network"
)


def _millions(found: object) -> float | None:
    return getattr(found, "per_request", None)


def table(counts: StudyCounts) -> Table:
    """Each ratio's counts: both configs', their ratio, queries, verdict."""
    rows: list[Sequence[object]] = [
        [row.name, _millions(row.faster), _millions(row.slower), row.ratio]
        + [row.queries, verdicts.describe(row.verdict, subject=row.configs[1])]
        for row in counts.ratios
    ]
    return Table(COLUMNS, rows, "the ratios by instruction count, per request")


def blocks(counts: StudyCounts | None) -> list[Block]:
    """The counted ratios' table and what it means; none when not counted."""
    if counts is None or not counts.ratios:
        return []
    said = EXPLAINED.format(rounds=counts.hash_rounds, layouts=counts.layouts)
    return [table(counts), Lines([said])]
