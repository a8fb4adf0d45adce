"""The scaling table (:mod:`..scaling`) as text and markdown.

A title, the table (:func:`.common.text_table` / :func:`.common.markdown_table`)
and a line saying what seed 001's figures beside ours measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from rally_keystone_perf.report.writers.common import markdown_table, text_table
from rally_keystone_perf.report.writers.text import CombinedTable

TITLE = "Throughput against Keystone nodes"  # markdown's heading
TEXT_TITLE = "throughput against Keystone nodes:"
SEED_NOTE = (
    "seed 001: token_authenticate and revocation_list_get per second, PKI "
    "tokens (API v3), 8-core Apache Keystone hosts behind haproxy on one "
    "PostgreSQL: compare the curves' shape, not their heights"
)
LEFT = ("saturated",)


def _left(header: Sequence[str]) -> tuple[str, ...]:
    """The saturation column and the configuration columns leading the rows."""
    names = list(header)
    leading = names[: names.index("nodes")] if "nodes" in names else []
    return (*leading, *LEFT)


def write_table(table: CombinedTable, stream: TextIO) -> None:
    """Title, prettytable, seed note."""
    header, rows = table
    body = text_table(header, rows, _left(header)).get_string()
    stream.write(f"{TEXT_TITLE}\n{body}\n{SEED_NOTE}\n")


def write_markdown(table: CombinedTable, stream: TextIO) -> None:
    """A ``##`` heading, the markdown table, the seed note."""
    header, rows = table
    body = markdown_table(header, rows, _left(header))
    stream.write(f"## {TITLE}\n\n{body}\n\n{SEED_NOTE}.\n")
