"""The report as a document: a section per report file, one per workload.

Each workload (:mod:`.workload`) is followed by its server side
(:mod:`.server_side`); the CSV table and JSON data are
:mod:`.report_data`'s. In the terminal a ``report:`` line heads each file,
in markdown a heading.
"""

from __future__ import annotations

from collections.abc import Sequence

from rally_keystone_perf.report.blocks import report_data, server_side, workload
from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    Blank,
    Block,
    Document,
    Heading,
    Lines,
    Only,
)
from rally_keystone_perf.report.figures.entries import FileEntries
from rally_keystone_perf.report.figures.run_labels import config_warnings

NO_WORKLOADS = "no workloads"


def title(files: Sequence[FileEntries]) -> str:
    """``rally-keystone-perf report (2 workloads)``."""
    count = sum(len(item.entries) for item in files)
    return f"rally-keystone-perf report ({count} workload{'' if count == 1 else 's'})"


def file_blocks(item: FileEntries) -> list[Block]:
    """A report file's name, its configuration's warnings and its workloads."""
    warnings = config_warnings(item.config)
    none = [] if item.entries else [NO_WORKLOADS]
    found: list[Block] = [
        Only(("table",), [Lines([f"report: {item.file}", *warnings, *none], AS_IS)]),
        Only(
            ("markdown",),
            [Heading(item.file, 2), Lines(warnings, strong=True), Lines(none)],
        ),
    ]
    for number, entry in enumerate(item.entries):
        found += [Blank()] if number else []
        found += [*workload.blocks(entry), *server_side.blocks(item.server, entry)]
    return found


def document(files: Sequence[FileEntries]) -> Document:
    """The report's document (see the module's doc)."""
    found: list[Block] = []
    for index, item in enumerate(files):
        found += [Blank(), *file_blocks(item)] if index else file_blocks(item)
    return Document(
        title(files),
        [Only(("table", "markdown", "html"), found), report_data.csv_table(files)],
        level=None,
        data=report_data.data(files),
    )
