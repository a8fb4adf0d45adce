"""A study's page (:mod:`rally_keystone_perf.report.blocks.study`) in every
format: the seed's rows beside ours, the ratios."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from rally_keystone_perf.report.blocks import study as blocks
from rally_keystone_perf.report.blocks.model import TEXT, Column, Lines, Table
from rally_keystone_perf.report.figures import study, study_counts, verdicts
from rally_keystone_perf.report.figures.study_page import StudyPage
from rally_keystone_perf.report.writers import registry, render
from rally_keystone_perf.report.writers.common import stacked_table
from rally_keystone_perf.report.writers.render import cells_of
from rally_keystone_perf.studies import seed000, seed001, seed003
from tests.unit.report import runs as r
from tests.unit.report.writers.test_html import assert_valid_page, svgs


def _written(fmt: str, page: StudyPage) -> str:
    stream = io.StringIO()
    registry.writer(registry.STUDY, fmt)(page, stream)
    return stream.getvalue()


def _rows(page: StudyPage) -> tuple[list[str], list[list[str]]]:
    header, rows, _ = cells_of(blocks.rows_table(page))
    return header, rows


def _page(tmp_path: Path) -> StudyPage:
    one = r.make_run(
        tmp_path, "one", [r.workload([0.4] * 10, concurrency=4)], r.state()
    )
    four = r.make_run(
        tmp_path, "four", [r.workload([0.2] * 10, concurrency=4)], r.state()
    )
    ours = study.measured({seed000.ONE: [one], seed000.FOUR: [four]})
    return StudyPage(
        seed000.STUDY,
        "quick",
        study.study_rows(seed000.STUDY, ours, [4]),
        study.ratio_rows(seed000.STUDY, ours, [4]),
    )


def test_the_seeds_figures_beside_ours(tmp_path: Path) -> None:
    header, rows = _rows(_page(tmp_path))
    assert header[:6] == [
        "config",
        "concurrency",
        "seed avg",
        "ours avg",
        "seed p95",
        "ours p95",
    ]
    one = dict(zip(header, rows[0], strict=True))
    assert (one["config"], one["seed avg"], one["seed p95"]) == (
        "eventlet-1w",
        "0.998",
        "1.391",
    )
    assert one["ours success"] == "100.0%"
    apache = dict(zip(header, rows[2], strict=True))
    assert (apache["ours avg"], apache["bottleneck"]) == ("-", "not measured")


def test_the_text_names_source_ratios_and_what_differs(tmp_path: Path) -> None:
    out = _written("table", _page(tmp_path))
    assert out.startswith("study 000 (quick): Token creation")
    assert seed000.SOURCE in " ".join(out.split())
    assert "| 4 workers vs 1     |           4 | 3.37x |" in out
    assert "differs from the seed: " in out and "the seed concluded: " in out
    assert max(len(line) for line in out.splitlines()) <= render.WIDTH


def test_the_text_has_a_table_per_config_its_bottlenecks_under_it(
    tmp_path: Path,
) -> None:
    sections = _written("table", _page(tmp_path)).split("\n\n")
    one = next(part for part in sections if part.startswith("eventlet-1w: "))
    lines = one.splitlines()
    # the header's names on two lines, the config's line above instead of a column
    assert lines[2].split("|")[1:4] == ["             ", "  seed ", "  ours "]
    assert lines[3].split("|")[1:4] == [" concurrency ", "   avg ", "   avg "]
    assert re.match(r"\| +4 \| 0\.998 \| 0\.410 \|", lines[5])
    assert lines[-1].startswith("+---")  # no server files: no bottleneck line
    apache = next(part for part in sections if part.startswith("apache: "))
    assert apache.splitlines()[-1] == "  c4: not measured"
    assert "| 0.299 |    - |" in apache  # the seed's figure, ours missing


def test_a_config_table_leaves_out_the_seeds_empty_columns() -> None:
    columns = [Column("config", TEXT), Column("concurrency")]
    columns += [Column(n, fmt="fixed3") for n in ("seed avg", "ours avg")]
    columns += [Column("seed x", fmt="per second"), Column("bottleneck", TEXT)]
    rows = [["a", 8, None, 0.1, 1.0, "-"], ["a", 16, None, None, None, "b"]]
    shown, note = blocks.config_table(Table(columns, rows), "a")
    assert isinstance(shown, Table)
    table = stacked_table(*cells_of(shown))
    assert "seed |  ours |   seed" not in table  # seed avg: no figure in this config
    assert table.splitlines()[1].split("|")[1:-1] == [
        "             ",
        "  ours ",
        "  seed ",
    ]
    assert note == Lines(["c16: bottleneck b"], indent=1)


def test_the_markdown_and_html_pages(tmp_path: Path) -> None:
    page = _page(tmp_path)
    markdown = _written("markdown", page)
    assert markdown.startswith("## study 000 (quick)")
    assert "| eventlet-1w | 4 | 0.998 |" in markdown
    html = _written("html", page)
    checked = assert_valid_page(html)
    assert [t.caption for t in checked.tables] == ["the seed's rows and ours", "ratios"]


def test_a_seed_without_figures_shows_its_words() -> None:
    rows = study.study_rows(seed003.STUDY, {}, [200])
    page = StudyPage(seed003.STUDY, "quick", rows, [])
    header, cells = _rows(page)
    assert "seed avg" not in header and "seed says" in header
    says = dict(zip(header, cells[0], strict=True))["seed says"]
    assert says == seed003.OVERWHELMED  # stock Apache at 200 connections


def test_rows_by_action_and_rates_compared_by_throughput(tmp_path: Path) -> None:
    """Seed 001's rates: an action column, throughput among the figures."""
    slow = r.make_run(
        tmp_path, "slow", [r.workload([0.4] * 10, concurrency=8)], r.state()
    )
    fast = r.make_run(
        tmp_path, "fast", [r.workload([0.1] * 10, concurrency=8)], r.state()
    )
    ours = study.measured({"eventlet-1p": [slow], "apache-1n": [fast]})
    page = StudyPage(
        seed001.STUDY,
        "quick",
        study.study_rows(seed001.STUDY, ours, [8]),
        study.ratio_rows(seed001.STUDY, ours, [8]),
    )
    header, rows = _rows(page)
    assert header[:5] == [
        "config",
        "concurrency",
        "action",
        "ours avg",
        "seed throughput",
    ]
    assert "iter/s" not in header
    first = dict(zip(header, rows[0], strict=True))
    assert (first["config"], first["action"], first["seed throughput"]) == (
        "eventlet-1p",
        "keystone.create_token",
        "10.0/s",
    )
    assert first["ours throughput"].endswith("/s")
    ratio = page.ratios[0]
    assert ratio.name == "Apache vs one process, token_authenticate"
    assert ratio.seed == pytest.approx(5.7)
    rates = (
        ours[("apache-1n", 8, "")].throughput,
        ours[("eventlet-1p", 8, "")].throughput,
    )
    assert ratio.ours == pytest.approx(rates[0] / rates[1])
    assert len(page.ratios) == 8  # only the rates' ratios: level 8


def test_the_page_plots_what_was_measured_at_two_points(tmp_path: Path) -> None:
    """Seed 000 at two levels: each figure against concurrency; seed 001's
    Apache at 1 and 2 nodes: the throughput against nodes, ours and the
    seed's; one level only: no plot."""
    reports = {
        label: [
            r.make_run(
                tmp_path / label,
                f"c{level}",
                [r.workload([0.1 * level] * 10, concurrency=level)],
                r.state(),
            )
            for level in (4, 16)
        ]
        for label in (seed000.ONE, seed000.FOUR)
    }
    ours = study.measured(reports)
    rows = study.study_rows(seed000.STUDY, ours, [4, 16])
    page = _written("html", StudyPage(seed000.STUDY, "quick", rows, []))
    titles = [svg.findtext("title") for svg in svgs(page)]
    assert titles == [
        "ours: avg vs concurrency",
        "ours: p95 vs concurrency",
        "ours: throughput vs concurrency",
    ]
    one_level = study.study_rows(seed000.STUDY, ours, [4])
    page = _written("html", StudyPage(seed000.STUDY, "quick", one_level, []))
    assert svgs(page) == []
    nodes = study.measured(
        {
            label: [
                r.make_run(
                    tmp_path / label,
                    "rate",
                    [r.workload([0.1] * 10, concurrency=8)],
                    r.state(),
                )
            ]
            for label in ("apache-1n", "apache-2n")
        }
    )
    rows = study.study_rows(seed001.STUDY, nodes, [8])
    page = _written("html", StudyPage(seed001.STUDY, "quick", rows, []))
    (plot,) = svgs(page)
    assert plot.findtext("title") == "keystone.create_token: throughput vs nodes"


def test_the_study_is_written_through_the_registry(tmp_path: Path) -> None:
    page = _page(tmp_path)
    for fmt, first in (
        ("table", "study 000"),
        ("markdown", "## study 000"),
        ("html", "<!"),
    ):
        stream = io.StringIO()
        registry.writer(registry.STUDY, fmt)(page, stream)
        assert stream.getvalue().lower().startswith(first.lower()), fmt


def test_the_instruction_ratio_beside_the_time_ratio() -> None:

    name = "fernet vs JWS, token validation (SQL)"
    timed = study.RatioRow(name, 1, 1.23, "", 0.91, "not reproduced")
    other = study.RatioRow("2 nodes vs 1, token_authenticate", 8, 1.84, "", 0.98, "-")
    counted = study_counts.CountedRatio(
        name,
        ("fernet-sql", "jws-sql"),
        None,
        None,
        1.031,
        1.0,
        verdicts.counted(1.031, 0.004),
    )
    page = StudyPage(
        seed001.STUDY,
        "quick",
        [],
        [timed, other],
        counts=study_counts.StudyCounts([counted], 4, 4),
    )
    header, rows, _ = cells_of(blocks.ratios_table(page))
    assert header[-2:] == ["instructions", "verdict"]
    assert rows[0][-2] == "1.03x" and rows[1][-2] in ("", "-", "n/a")
    text = _written("markdown", page)
    assert "jws-sql costs 3.1% more instructions (layouts within 0.4%)" in text
    assert "bcrypt at 4 rounds" in text
