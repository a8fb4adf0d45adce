"""The one format registry: for each document kind, format name -> writer.

A writer is a function ``(figures, stream) -> None``. The CLI's ``--format``
choices are the keys (:data:`FORMATS` for ``report`` and ``compare``,
:data:`GATE_FORMATS` for ``gate``); :func:`writer` looks one up. A kind
built as a document (:mod:`rally_keystone_perf.report.blocks`) is one
:func:`document_kind` entry: its blocks builder and the formats it is
rendered in (:data:`.render.RENDERERS`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TextIO, TypeVar

from rally_keystone_perf.report.blocks import releases as releases_blocks
from rally_keystone_perf.report.blocks.model import Document
from rally_keystone_perf.report.figures.compare import CompareResult
from rally_keystone_perf.report.figures.entries import FileEntries
from rally_keystone_perf.report.figures.gate import GateResult
from rally_keystone_perf.report.figures.releases import ReleasesPage
from rally_keystone_perf.report.figures.trends import Trend
from rally_keystone_perf.report.writers import (
    ab,
    compare,
    data,
    gate,
    scaling,
    study,
    text,
    trends,
)
from rally_keystone_perf.report.writers.html import comparison as compare_page
from rally_keystone_perf.report.writers.html import report as report_page
from rally_keystone_perf.report.writers.render import RENDERERS

W = TypeVar("W")
P = TypeVar("P")


def document_kind(
    build: Callable[[P], Document], formats: Sequence[str]
) -> dict[str, Callable[[P, TextIO], None]]:
    """A kind's writers: build its document, render it in each format."""

    def rendered(fmt: str) -> Callable[[P, TextIO], None]:
        def write(figures: P, stream: TextIO) -> None:
            RENDERERS[fmt](build(figures), stream)

        return write

    return {fmt: rendered(fmt) for fmt in formats}


REPORT: dict[str, Callable[[Sequence[FileEntries], TextIO], None]] = {
    "table": text.write_table,
    "markdown": text.write_markdown,
    "csv": data.write_csv,
    "json": data.write_json,
    "html": report_page.write_page,
}
COMPARE: dict[str, Callable[[CompareResult, TextIO], None]] = {
    "table": compare.write_table,
    "markdown": compare.write_markdown,
    "csv": compare.write_csv,
    "json": compare.write_json,
    "html": compare_page.write_page,
}
GATE: dict[str, Callable[[GateResult, TextIO], None]] = {
    "table": gate.write_table,
    "markdown": gate.write_markdown,
    "json": gate.write_json,
}
COMBINED: dict[str, Callable[[text.CombinedTable, TextIO], None]] = {
    "table": text.write_combined_table,
    "markdown": text.write_combined_markdown,
}
SCALING: dict[str, Callable[[text.CombinedTable, TextIO], None]] = {
    "table": scaling.write_table,
    "markdown": scaling.write_markdown,
}
STUDY: dict[str, Callable[[study.StudyPage, TextIO], None]] = {
    "table": study.write_text,
    "markdown": study.write_markdown,
    "html": study.write_html,
}
TRENDS: dict[str, Callable[[Sequence[Trend], TextIO], None]] = {
    "table": trends.write_text,
    "markdown": trends.write_markdown,
    "json": trends.write_json,
    "html": trends.write_html,
}

AB: dict[str, Callable[[ab.AbPage, TextIO], None]] = {
    "table": ab.write_text,
    "markdown": ab.write_markdown,
    "json": ab.write_json,
}

RELEASES: dict[str, Callable[[ReleasesPage, TextIO], None]] = document_kind(
    releases_blocks.document, ("table", "markdown", "html", "svg")
)

FORMATS = tuple(REPORT)  # report and compare write the same formats
GATE_FORMATS = tuple(GATE)


def writer(kind: Mapping[str, W], fmt: str) -> W:
    """The writer of format ``fmt`` among ``kind``'s.

    :raises ValueError: ``kind`` has no such format.
    """
    try:
        return kind[fmt]
    except KeyError:
        raise ValueError(
            f"unknown format {fmt!r}; choose one of {', '.join(kind)}"
        ) from None
