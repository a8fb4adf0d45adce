"""A study's capacity rows and ratios on its page, in every format."""

from __future__ import annotations

import dataclasses
import io

from rally_keystone_perf.report.blocks import study_capacity as blocks
from rally_keystone_perf.report.figures import study
from rally_keystone_perf.report.figures import study_capacity as figures
from rally_keystone_perf.report.figures.study_page import StudyPage
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.report.writers.render import cells_of
from rally_keystone_perf.studies import seed001, seed003
from tests.unit.report.writers.test_html import assert_valid_page

ROWS = [
    figures.CapacityRow(
        "apache-1n",
        57.0,
        4.0,
        4.4,
        4.0,
        "Keystone CPU 95%",
        7,
        (0.2, 0.25),
        "the bracket is narrower than 10%",
    ),
    figures.CapacityRow(
        "apache-2n",
        105.0,
        None,
        1.0,
        None,
        None,
        1,
        None,
        "no tested rate met the SLO (from 1/s)",
    ),
]
PART = figures.CapacityPart(
    "p95<2000ms",
    "tokens",
    ROWS,
    figures.capacity_ratios(seed001.STUDY, ROWS),
    "one after the other",
)


def test_the_rows_with_the_seeds_rates_and_the_bracket() -> None:
    header, cells = cells_of(blocks.rows_table(PART))[:2]
    assert header == [
        "config",
        "seed/s",
        "sustained/s",
        "not at/s",
        "knee/s",
        "steps",
        "probe s",
        "bottleneck",
    ]
    assert cells[0] == [
        "apache-1n",
        "57.0",
        "4.0",
        "4.4",
        "4.0",
        "7",
        "0.200-0.250",
        "Keystone CPU 95%",
    ]
    assert cells[1][2:5] == ["-", "1.0", "-"]


def test_without_seed_rates_no_seed_column() -> None:
    part = dataclasses.replace(
        PART, rows=[dataclasses.replace(r, seed_rate=None) for r in ROWS]
    )
    assert "seed/s" not in cells_of(blocks.rows_table(part))[0]


def test_the_notes_say_how_and_why_a_search_stopped_early() -> None:
    lines = blocks.notes(PART)
    assert lines[0] == "capacity measured one after the other"
    assert lines[1:] == ["apache-2n: stopped: no tested rate met the SLO (from 1/s)"]


def test_the_ratios_with_the_brackets_range() -> None:
    header, cells = cells_of(blocks.ratios_table(PART))[:2]
    assert header == ["ratio", "seed", "ours", "range", "verdict"]
    assert cells == [
        [
            "2 nodes vs 1, token_authenticate",
            "1.84x",
            "-",
            "-",
            "not measured: no rate met",
        ]
    ]


def _html(page: StudyPage) -> str:
    stream = io.StringIO()
    registry.writer(registry.STUDY, "html")(page, stream)
    return stream.getvalue()


def test_the_study_page_carries_the_part_in_every_format() -> None:
    rows = study.study_rows(seed003.STUDY, {}, [10])
    page = StudyPage(seed003.STUDY, "quick", rows, [], capacity=PART)
    text = io.StringIO()
    registry.writer(registry.STUDY, "table")(page, text)
    assert blocks.heading(PART) in text.getvalue().replace("\n", " ")
    assert "| apache-1n |" in text.getvalue()
    assert "\napache-1n: bottleneck Keystone CPU 95%\n" in text.getvalue()
    assert all(len(line) <= 120 for line in text.getvalue().splitlines())
    markdown = io.StringIO()
    registry.writer(registry.STUDY, "markdown")(page, markdown)
    assert f"### {blocks.heading(PART)}" in markdown.getvalue()
    checked = assert_valid_page(_html(page))
    captions = [t.caption for t in checked.tables]
    assert blocks.heading(PART) in captions and "capacity ratios" in captions
    bare = StudyPage(seed003.STUDY, "quick", rows, [])
    bare_tables = assert_valid_page(_html(bare)).tables
    assert "capacity ratios" not in [t.caption for t in bare_tables]
