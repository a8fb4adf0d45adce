"""Tests for report.blocks.workload: terminal tables, markdown, error summaries."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rally_keystone_perf.report.blocks.model import (
    Block,
    Document,
    Lines,
    shown,
    together,
)
from rally_keystone_perf.report.blocks.workload import (
    COLUMNS,
    THROUGHPUT,
    blocks,
    config_text,
    context_blocks,
    error_summary,
    heading,
    shown_rows,
)
from rally_keystone_perf.report.figures import run_labels
from rally_keystone_perf.report.figures.entries import ReportEntry
from rally_keystone_perf.report.figures.stats import StatsRow, main_stats, throughput
from rally_keystone_perf.report.readers.rally_json import Workload, load_report
from rally_keystone_perf.report.writers.render import WIDTH, render_text, text_lines
from tests.unit.report import factory as f
from tests.unit.report import runs as r

CONFIG_KEYS = r.CONFIG_KEYS

a = f.atomic

it = f.iteration

NESTED = [
    a(
        "keystone_v3.create_project",
        0.0,
        0.5,
        children=[a("list_roles", 0.1, 0.2, children=[a("grandchild", 0.1, 0.15)])],
    ),
]


def render_workload(
    workload: Workload,
    rows: list[StatsRow],
    stream: io.StringIO,
    extra: dict[str, str] | None = None,
) -> None:
    """A workload's blocks in the terminal."""
    entry = ReportEntry(workload, extra or {}, rows, throughput(workload))
    render_text(Document("", blocks(entry), level=None), stream)


def render_report(
    workloads: list[Workload],
    stream: io.StringIO,
    columns: dict[str, str] | None = None,
) -> None:
    """Every workload in the terminal, parted by blank lines."""
    for index, workload in enumerate(workloads):
        stream.write("\n" if index else "")
        render_workload(workload, main_stats(workload), stream, columns)


def _lines(found: list[Block]) -> list[str]:
    return text_lines(shown(found, "table"))


def context_lines(workload: Workload) -> list[str]:
    return _lines(context_blocks(workload))


def config_lines(columns: dict[str, str]) -> list[str]:
    return _lines([Lines([config_text(columns, together)])])


def _load(tmp_path: Path, *workloads: dict) -> list[Workload]:
    """Export workloads with Rally's exporter and load them back."""
    path = f.write_report(tmp_path / "r.json", [f.task([list(workloads)])])
    return load_report(path)


def _render(workload: Workload, extra: dict[str, str] | None = None) -> str:
    stream = io.StringIO()
    render_workload(workload, main_stats(workload), stream, extra)
    return stream.getvalue()


@pytest.fixture
def nested(tmp_path: Path) -> Workload:
    data = [
        it(1.0, 0.123456, 0.5, atomics=NESTED),
        it(2.0, 0.2, atomics=NESTED, error=("KeystoneError", "boom")),
    ]
    (workload,) = _load(tmp_path, f.workload(data, position=3, load_duration=0.5))
    return workload


def test_the_heading_names_the_arguments_that_tell_workloads_apart(
    tmp_path: Path,
) -> None:
    data = [it(1.0, 0.1)]
    args = {"token_kind": "application_credential", "allow_expired": True}
    (given, plain) = _load(
        tmp_path,
        f.workload(data, args=args, position=0),
        f.workload(data, position=1),
    )
    assert heading(given).startswith(
        f"{f.SCENARIO} token_kind=application_credential allow_expired=true ("
    )
    assert heading(plain).startswith(f"{f.SCENARIO} (position 1")


def test_heading_table_and_footer(nested: Workload) -> None:
    lines = _render(nested).splitlines()
    assert lines[0] == (
        f"{f.SCENARIO} (position 3, runner constant, times 4, concurrency 2)"
    )
    header = [cell.strip() for cell in lines[2].strip("|").split("|")]
    assert header == [*COLUMNS, THROUGHPUT]
    assert (
        "load duration: 0.5 s, throughput: 2.0 iterations/s (durations in seconds)"
        in lines
    )


def test_nested_rows_are_indented(nested: Workload) -> None:
    out = _render(nested)
    assert "| keystone_v3.create_project |" in out
    assert "|   list_roles  " in out
    assert "|     grandchild  " in out
    assert "| total  " in out
    assert "|   duration  " in out
    assert "|   idle_duration  " in out


def test_numbers_rounded_like_rally(nested: Workload) -> None:
    duration_row = next(
        line for line in _render(nested).splitlines() if "|   duration " in line
    )
    cells = [cell.strip() for cell in duration_row.strip("|").split("|")]
    # min, median, p90, p95, max, avg, success, count; the throughput is the
    # total's, on its row only
    assert cells[1:] == [
        "0.123",
        "0.162",
        "0.192",
        "0.196",
        "0.2",
        "0.162",
        "50.0%",
        "2",
        "",
    ]
    total = next(line for line in _render(nested).splitlines() if "| total " in line)
    assert total.rstrip("|").split("|")[-1].strip() == "2.0"


def test_configuration_once_per_workload(nested: Workload) -> None:
    columns = {"mode": "uwsgi", "processes": "4", "concurrency": "8"}
    lines = _render(nested, columns).splitlines()
    assert lines[1] == "config: mode uwsgi, processes 4, concurrency 8"
    header = next(line for line in lines if line.startswith("| action"))
    assert "uwsgi" not in header and "uwsgi" not in "".join(lines[2:])


def test_a_long_configuration_wraps_and_the_table_fits_120_columns(
    nested: Workload,
) -> None:
    columns = {f"setting{k}": f"value-{k}" * 2 for k in range(12)}
    lines = _render(nested, columns).splitlines()
    assert max(len(line) for line in lines) <= 120
    wrapped = [line for line in lines if "setting" in line]
    assert len(wrapped) > 1 and all(line.startswith("  ") for line in wrapped[1:])


def test_total_children_only_when_iterations_idled(tmp_path: Path) -> None:
    busy = [it(float(i), 0.1 + i / 100) for i in range(5)]  # no idle time
    (workload,) = _load(tmp_path, f.workload(busy))
    names = [row.name for row in shown_rows(main_stats(workload))]
    assert names[-1] == "total" and "duration" not in names
    assert "|   duration " not in _render(workload)
    assert len(main_stats(workload)) == len(names) + 2  # computed, not shown


def test_empty_workload_shows_na(tmp_path: Path) -> None:
    (workload,) = _load(tmp_path, f.workload([], runner={}, load_duration=0))
    out = _render(workload)
    assert out.splitlines()[0] == f"{f.SCENARIO} (position 0, runner constant)"
    total = next(line for line in out.splitlines() if line.startswith("| total"))
    assert total.count("n/a") == 8  # 6 durations, success and the throughput
    assert "load duration: 0.0 s, throughput: n/a iterations/s" in out
    assert "errors: none" in out


def test_error_summary_without_tracebacks(tmp_path: Path) -> None:
    errors = [("E1", "one")] * 4 + [("E2", "two\nlines")] * 3 + [("E3", "three")]
    errors += [("E4", "x"), ("E5", "y"), ("E6", "z")]
    data = [it(float(i), 0.1, error=err) for i, err in enumerate(errors)]
    data.append(it(99.0, 0.1))
    (workload,) = _load(tmp_path, f.workload(data))
    out = _render(workload)
    assert "SECRET_TRACEBACK_LINE" not in out
    assert "Traceback" not in out
    lines = out.splitlines()
    start = lines.index(
        "errors: 11 of 12 iterations failed (6 kinds, 5 most frequent shown)"
    )
    assert lines[start + 1 :] == [
        "  4 x E1: one",
        "  3 x E2: two lines",
        "  1 x E3: three",
        "  1 x E4: x",
        "  1 x E5: y",
    ]


def test_render_report_all_workloads(tmp_path: Path) -> None:
    workloads = _load(
        tmp_path,
        f.workload([it(1.0, 0.1)], name="A.first"),
        f.workload([it(1.0, 0.1)], name="B.second", runner_type="rps", position=1),
    )
    stream = io.StringIO()
    render_report(workloads, stream, {"mode": "eventlet"})
    out = stream.getvalue()
    assert out.count("| total ") == 2
    assert "\n\nB.second (position 1, runner rps, times 4, concurrency 2)\n" in out
    assert out.startswith("A.first (position 0, runner constant")


def test_setup_and_cleanup_times_apart_from_the_load(tmp_path: Path) -> None:
    raw = f.workload([f.iteration(10.0, 0.4)])
    raw["contexts_results"] = [
        {
            "plugin_name": "users@openstack",
            "setup": {"started_at": 1.0, "finished_at": 31.25, "error": None},
            "cleanup": {"started_at": 40.0, "finished_at": 45.0, "error": None},
        },
        {
            "plugin_name": "keystone_perf_tokens@openstack",
            "setup": {"started_at": 31.25, "finished_at": 32.0, "error": ["E", "m"]},
            "cleanup": {"started_at": None, "finished_at": None, "error": None},
        },
    ]
    (workload,) = _load(tmp_path, raw)
    assert context_lines(workload) == [
        "setup: 31.0 s (users@openstack 30.25 s, keystone_perf_tokens@openstack "
        "0.75 s), cleanup: 5.0 s (users@openstack 5.0 s)",
        "setup (31.0 s) outlasted the load (2.0 s), not in the figures: "
        "users@openstack 30.2 s creating users, hashing passwords",
        "  context keystone_perf_tokens@openstack failed: setup: E: m",
    ]
    assert max(len(line) for line in context_lines(workload)) <= 120
    assert context_lines(workload)[0] in _render(workload)


def test_wrapped_lines_keep_a_name_with_its_value() -> None:
    columns = {f"key{n}": f"value {n}" for n in range(20)}
    lines = config_lines(columns)
    assert len(lines) > 1
    assert all(len(line) <= WIDTH for line in lines)
    assert all(line.startswith(("config: ", "  key")) for line in lines)
    assert all(line.rstrip().endswith(",") for line in lines[:-1])
    assert " ".join(lines).replace("   ", " ") == config_text(columns)


def test_no_context_lines_without_contexts_results(nested: Workload) -> None:
    assert context_lines(nested) == []


def test_request_ids_do_not_split_an_error_kind(tmp_path: Path) -> None:
    message = "The request you have made requires authentication. (HTTP 401)"
    errors = [
        ("Unauthorized", f"{message} (Request-ID: req-{n}a2b-c3d4)") for n in range(3)
    ]
    data = [it(float(i), 0.1, error=err) for i, err in enumerate(errors)]
    (workload,) = _load(tmp_path, f.workload(data))
    assert error_summary(workload) == [
        "errors: 3 of 3 iterations failed",
        f"  3 x Unauthorized: {message}",
    ]


# --- the report's table and markdown formats ------------------------------------


def test_report_table_columns(reports: list[run_labels.LoadedReport]) -> None:
    out = r.write_report(reports, "table")
    assert out.startswith(f"report: {reports[0].path}\n")
    assert f"\nreport: {reports[1].path}\n" in out
    headers = [line for line in out.splitlines() if line.startswith("| action")]
    assert len(headers) == 2
    cells = [cell.strip() for cell in headers[0].strip("|").split("|")]
    assert cells == [*COLUMNS, THROUGHPUT]
    assert "SECRET_TRACEBACK_LINE" not in out
    config = "config: mode uwsgi, profile stock, processes 4, threads 2, cache "
    assert config + "request-local, db sqlite, hash rounds default" in out
    assert max(len(line) for line in out.splitlines()) <= 120


def test_report_markdown(reports: list[run_labels.LoadedReport]) -> None:
    out = r.write_report(reports, "markdown")
    tables = r.md_tables(out)
    assert len(tables) == 2
    header = tables[0][0]
    assert header == [*COLUMNS, THROUGHPUT]
    assert "config: mode uwsgi, profile stock, processes 4" in out
    names = [row[0] for row in tables[0][2:]]
    assert names[:2] == ["keystone.create_user", "-> inner"]
    assert "- 1 x Err\\|or: pipe \\| in message" in out
    assert f"## {reports[0].path}" in out


def test_report_without_workloads(tmp_path: Path) -> None:
    path = f.write_report(tmp_path / "empty.json", [f.task([[]])])
    (report,) = run_labels.load_reports([path])
    assert "no workloads" in r.write_report([report], "table")
    assert json.loads(r.write_report([report], "json"))["reports"][0]["workloads"] == []
