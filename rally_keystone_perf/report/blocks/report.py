"""The report as a document: a section per report file, one per workload.

Each workload (:mod:`.workload`) is followed by its server side
(:mod:`.server_side`); the CSV table and JSON data are
:mod:`.report_data`'s. In the terminal a ``report:`` line heads each file,
in markdown a heading. The HTML page opens with the overview
(:mod:`.overview`) and gives each workload a section, closed by its input
task (:func:`.shape.input_task`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rally_keystone_perf.report.blocks import (
    overview,
    report_data,
    server_side,
    shape,
    workload,
)
from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    Blank,
    Block,
    Config,
    Document,
    Heading,
    Lines,
    Only,
    Section,
)
from rally_keystone_perf.report.figures.entries import FileEntries
from rally_keystone_perf.report.figures.run_labels import config_warnings

NO_WORKLOADS = "no workloads"


def title(files: Sequence[FileEntries]) -> str:
    """``rally-keystone-perf report (2 workloads)``."""
    count = sum(len(item.entries) for item in files)
    return f"rally-keystone-perf report ({count} workload{'' if count == 1 else 's'})"


def file_blocks(item: FileEntries, index: int) -> list[Block]:
    """A report file's name, its configuration's warnings and its
    workloads, each a section (its anchor: :func:`.overview.anchor` of the
    file's ``index``)."""
    warnings = config_warnings(item.config)
    none = [] if item.entries else [NO_WORKLOADS]
    found: list[Block] = [
        Only(("table",), [Lines([f"report: {item.file}", *warnings, *none], AS_IS)]),
        Only(("markdown", "html"), [Heading(item.file, 2)]),
        Only(("markdown",), [Lines(warnings, strong=True), Lines(none)]),
        Only(("html",), [Config(item.config), Lines(warnings, style="note")]),
        Only(("html",), [Lines(none, style="meta")]),
    ]
    for number, entry in enumerate(item.entries):
        found += [Blank()] if number else []
        task = Only(("html",), [shape.input_task(entry.workload)])
        parts = [*workload.blocks(entry), *server_side.blocks(item.server, entry)]
        section = Section("workload", [*parts, task], overview.anchor(index, number))
        found.append(section)
    return found


def _head(files: Sequence[FileEntries]) -> list[Block]:
    """The page's head: how many files, the overview, the levels and nodes."""
    count = sum(len(item.entries) for item in files)
    meta = (
        f"{len(files)} report file(s). Figures are Rally's own statistics "
        "(failed iterations included); durations in seconds."
    )
    return [
        Lines([meta], style="meta"),
        *([overview.overview_table(files)] if count else []),
        *overview.level_blocks(files),
        *overview.node_blocks(files),
    ]


def document(files: Sequence[FileEntries]) -> Document:
    """The report's document (see the module's doc)."""
    found: list[Block] = [Only(("html",), _head(files))]
    for index, item in enumerate(files):
        found += [Blank()] if index else []
        found += file_blocks(item, index)
    return Document(
        title(files),
        [Only(("table", "markdown", "html"), found), report_data.csv_table(files)],
        level=None,
        data=report_data.data(files),
    )
