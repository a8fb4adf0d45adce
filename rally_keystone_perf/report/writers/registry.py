"""The one format registry: for each document kind, format name -> writer.

A writer is a function ``(figures, stream) -> None``. The CLI's ``--format``
choices are the keys (:data:`FORMATS` for ``report`` and ``compare``,
:data:`GATE_FORMATS` for ``gate``); :func:`writer` looks one up,
:func:`write` writes a kind's figures in one format and
:func:`write_files` in several. A kind built as a document
(:mod:`rally_keystone_perf.report.blocks`) is one :func:`document_kind`
entry: its blocks builder and the formats it is rendered in
(:data:`.render.RENDERERS`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO, TypeVar

from rally_keystone_perf.report.blocks import ab as ab_blocks
from rally_keystone_perf.report.blocks import bisect as bisect_blocks
from rally_keystone_perf.report.blocks import capacity as capacity_blocks
from rally_keystone_perf.report.blocks import combined as combined_blocks
from rally_keystone_perf.report.blocks import compare as compare_blocks
from rally_keystone_perf.report.blocks import gate as gate_blocks
from rally_keystone_perf.report.blocks import releases as releases_blocks
from rally_keystone_perf.report.blocks import report as report_blocks
from rally_keystone_perf.report.blocks import scaling as scaling_blocks
from rally_keystone_perf.report.blocks import study as study_blocks
from rally_keystone_perf.report.blocks import trends as trends_blocks
from rally_keystone_perf.report.blocks.model import Document
from rally_keystone_perf.report.figures.ab import AbPage
from rally_keystone_perf.report.figures.bisect import BisectPage
from rally_keystone_perf.report.figures.capacity_curve import Curve
from rally_keystone_perf.report.figures.combined import CombinedFigures
from rally_keystone_perf.report.figures.compare import CompareResult
from rally_keystone_perf.report.figures.entries import FileEntries
from rally_keystone_perf.report.figures.gate import GateResult
from rally_keystone_perf.report.figures.releases import ReleasesPage
from rally_keystone_perf.report.figures.scaling import ScalingFigures
from rally_keystone_perf.report.figures.study_page import StudyPage
from rally_keystone_perf.report.figures.trends import Trend
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


REPORT: dict[str, Callable[[Sequence[FileEntries], TextIO], None]] = document_kind(
    report_blocks.document, ("table", "markdown", "csv", "json", "html")
)
COMPARE: dict[str, Callable[[CompareResult, TextIO], None]] = document_kind(
    compare_blocks.document, ("table", "markdown", "csv", "json", "html")
)
GATE: dict[str, Callable[[GateResult, TextIO], None]] = document_kind(
    gate_blocks.document, ("table", "markdown", "json")
)
COMBINED: dict[str, Callable[[CombinedFigures, TextIO], None]] = document_kind(
    combined_blocks.document, ("table", "markdown")
)
SCALING: dict[str, Callable[[ScalingFigures, TextIO], None]] = document_kind(
    scaling_blocks.document, ("table", "markdown")
)
STUDY: dict[str, Callable[[StudyPage, TextIO], None]] = document_kind(
    study_blocks.document, ("table", "markdown", "html")
)
TRENDS: dict[str, Callable[[Sequence[Trend], TextIO], None]] = document_kind(
    trends_blocks.document, ("table", "markdown", "json", "html")
)

AB: dict[str, Callable[[AbPage, TextIO], None]] = document_kind(
    ab_blocks.document, ("table", "markdown", "json")
)

RELEASES: dict[str, Callable[[ReleasesPage, TextIO], None]] = document_kind(
    releases_blocks.document, ("table", "markdown", "html", "svg")
)
BISECT: dict[str, Callable[[BisectPage, TextIO], None]] = document_kind(
    bisect_blocks.document, ("table", "markdown", "json", "html")
)
CAPACITY: dict[str, Callable[[Curve, TextIO], None]] = document_kind(
    capacity_blocks.document, ("table", "markdown", "html")
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


def write(
    kind: Mapping[str, Callable[[P, TextIO], None]],
    figures: P,
    stream: TextIO,
    fmt: str = "table",
) -> None:
    """``figures`` of a document kind written to ``stream`` in format ``fmt``.

    :raises ValueError: ``kind`` has no such format.
    """
    writer(kind, fmt)(figures, stream)


def write_files(
    kind: Mapping[str, Callable[[P, TextIO], None]],
    figures: P,
    paths: Mapping[str, Path],
) -> None:
    """``figures`` written in each format of ``paths`` to its file.

    :raises ValueError: ``kind`` has no such format.
    """
    for fmt, path in paths.items():
        write = writer(kind, fmt)  # before the file is opened
        with path.open("w", encoding="utf-8") as stream:
            write(figures, stream)
