"""The html format in a real headless Chromium: it renders, every table, no console.

Needs Debian's ``chromium`` (``apt-get install chromium``). Without it these
tests fail under CI (the ``CI`` environment variable is set) and are skipped
elsewhere.

Chromium's ``--enable-logging=stderr`` log prints every console message of the
page as a ``CONSOLE`` line but not its level (Chromium 156 logs them all as
``INFO:CONSOLE``). The pages have no script, so the only console messages
they can cause are Chromium's own errors: a resource the Content Security
Policy refused (anything external), a failed load. Hence the tests accept no
console line at all; :func:`test_console_check_sees_errors` shows that the
check does see such errors.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from rally_keystone_perf.report import api
from rally_keystone_perf.report.blocks.compare_data import series_groups
from rally_keystone_perf.report.figures import compare, run_labels, study
from rally_keystone_perf.report.figures.compare import CompareResult
from rally_keystone_perf.report.figures.study_page import StudyPage
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.studies import seed000
from tests.unit.report import factory as f
from tests.unit.report import runs as r
from tests.unit.report import traced

pytestmark = pytest.mark.functional

WINDOW = (1400, 2000)
CONSOLE = re.compile(r":CONSOLE[:(]")
SCENARIO = 'KeystonePerf.create_token <&> "quoted"'


def chromium() -> str:
    """Chromium's path; fails under CI and skips elsewhere when it is missing."""
    path = shutil.which("chromium")
    if path is None:
        message = "chromium is not installed: apt-get install chromium"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def run_chromium(
    binary: str, tmp_path: Path, page: Path, *options: str
) -> subprocess.CompletedProcess[str]:
    """One headless Chromium run on ``page`` with a fresh profile, no network."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    argv = [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        *options,
        page.as_uri(),
    ]
    result = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def console_lines(stderr: str) -> list[str]:
    """The page's console messages in Chromium's log."""
    return [line for line in stderr.splitlines() if CONSOLE.search(line)]


def png_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG; checks that its pixels are not all alike."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    idat, offset = b"", 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        if kind == b"IDAT":
            idat += data[offset + 8 : offset + 8 + length]
        offset += 12 + length
    pixels = zlib.decompress(idat)
    # filtered scanlines of a blank page are nearly all one byte value
    assert len(set(pixels)) > 32, "the screenshot looks blank"
    return width, height


def render_and_check(
    binary: str, tmp_path: Path, name: str, text: str, tables: int, plots: int
) -> Path:
    """Write ``text`` as ``name``.html, dump its DOM and screenshot it."""
    page = tmp_path / f"{name}.html"
    page.write_text(text, encoding="utf-8")
    dumped = run_chromium(binary, tmp_path, page, "--dump-dom")
    dom = dumped.stdout
    assert "</html>" in dom, "Chromium dumped no document"
    assert dom.count("<table") == tables
    assert dom.count("<caption>") == tables
    assert dom.count("<svg") == plots
    assert "<script" not in dom
    assert console_lines(dumped.stderr) == []
    screenshot = tmp_path / f"{name}.png"
    shot = run_chromium(
        binary,
        tmp_path,
        page,
        f"--screenshot={screenshot}",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--hide-scrollbars",
    )
    assert console_lines(shot.stderr) == []
    assert screenshot.is_file(), shot.stderr[-3000:]
    assert screenshot.stat().st_size > 20_000
    assert png_size(screenshot) == WINDOW
    return screenshot


def test_report_page_renders(tmp_path: Path) -> None:
    binary = chromium()
    a = f.atomic
    nested = [a("keystone.create_user", 0.0, 0.3, children=[a("inner", 0.0, 0.1)])]
    data = [f.iteration(i * 0.2, 0.3 + i / 200, 0.0, nested) for i in range(40)]
    data.append(f.iteration(8.0, 0.25, 0.0, [], ("HttpError", "database <locked>")))
    r.make_run(
        tmp_path / "runs",
        "one",
        [
            f.workload(data, name=SCENARIO, runner={"times": 41, "concurrency": 4}),
            r.workload(r.gauss(1, 0.4), concurrency=2, position=1),
        ],
        r.state(rounds=4),
    )
    r.make_run(tmp_path / "runs", "two", [r.workload(r.gauss(2, 0.5))], r.state())
    reports = run_labels.load_reports(
        [tmp_path / "runs" / "one", tmp_path / "runs/two"]
    )
    stream = io.StringIO()
    api.write_report(reports, stream, "html")
    # tables: the overview, 3 workloads', the first one's failures; plots per
    # workload: durations, 2 of the load profile, a histogram and a CDF of
    # its atomic action and of the total
    render_and_check(binary, tmp_path, "report", stream.getvalue(), 5, 3 * 7)


def test_traced_report_page_renders(tmp_path: Path) -> None:
    """A traced run's page: the overview, its table, the slowest traced
    iterations' table; the durations plot, the load profile's 2, the total's
    histogram and CDF and a waterfall per slow iteration (``--trace``)."""
    binary = chromium()
    report = traced.traced_run(tmp_path / "runs")
    stream = io.StringIO()
    api.report([report], stream, "html")
    render_and_check(binary, tmp_path, "traced", stream.getvalue(), 3, 7)


def test_trends_page_renders(tmp_path: Path) -> None:
    """``report --trends``: two workloads over three runs, a plot and a
    table each."""
    binary = chromium()
    for name, mean in (("one", 0.2), ("two", 0.3), ("three", 0.2)):
        r.make_run(
            tmp_path / "runs",
            name,
            [
                r.workload(r.gauss(1, mean), concurrency=2),
                r.workload(r.gauss(2, mean), concurrency=4, position=1),
            ],
            r.state(),
        )
    stream = io.StringIO()
    api.trends([tmp_path / "runs"], stream, "html")
    render_and_check(binary, tmp_path, "trends", stream.getvalue(), 2, 2)


def test_study_page_with_plots_renders(tmp_path: Path) -> None:
    """A study measured at two levels: its rows, its ratios and each
    figure against concurrency, a line per config."""
    binary = chromium()
    reports = {
        label: [
            r.make_run(
                tmp_path / label,
                f"c{level}",
                [r.workload(r.gauss(level, 0.05 * level), concurrency=level)],
                r.state(),
            )
            for level in (4, 16)
        ]
        for label in (seed000.ONE, seed000.FOUR)
    }
    ours = study.measured(reports)
    page = StudyPage(
        seed000.STUDY,
        "quick",
        study.study_rows(seed000.STUDY, ours, [4, 16]),
        study.ratio_rows(seed000.STUDY, ours, [4, 16]),
    )
    stream = io.StringIO()
    registry.writer(registry.STUDY, "html")(page, stream)
    render_and_check(binary, tmp_path, "study", stream.getvalue(), 2, 3)


def test_compare_page_renders(tmp_path: Path) -> None:
    binary = chromium()
    root = tmp_path / "runs"
    r.make_run(
        root,
        "base",
        [
            r.workload(r.gauss(1, 0.3), concurrency=1),
            r.workload(r.gauss(2, 0.4), concurrency=2),
            r.workload(r.gauss(3, 0.7), concurrency=4, errors=(2, 5)),
            r.workload(r.gauss(4, 0.2), concurrency=2, name=SCENARIO, position=3),
        ],
        r.state(),
    )
    r.make_run(
        root,
        "other",
        [
            r.workload(r.gauss(5, 0.45), concurrency=2),
            r.workload(r.gauss(6, 0.2), concurrency=2, name=SCENARIO, position=1),
        ],
        r.state(processes=4),
    )
    runs = run_labels.load_runs([root / "base", root / "other"])
    comparison = compare.compare([(run.label, run.workloads) for run in runs])
    series = compare.series([(run.config_label, run.workloads) for run in runs])
    assert len(series_groups(series)) == 1
    stream = io.StringIO()
    registry.write(
        registry.COMPARE, CompareResult(comparison, series, runs), stream, "html"
    )
    tables = len(comparison.groups) + 1
    render_and_check(binary, tmp_path, "compare", stream.getvalue(), tables, 3)


def test_console_check_sees_errors(tmp_path: Path) -> None:
    """The console check is not vacuous: it sees a script's and the CSP's errors."""
    binary = chromium()
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
        "script-src 'unsafe-inline'\"><title>bad</title></head><body>"
        "<img alt='' src='missing.png'>"
        "<script>console.error('deliberate error')</script></body></html>",
        encoding="utf-8",
    )
    lines = console_lines(run_chromium(binary, tmp_path, page, "--dump-dom").stderr)
    assert any("deliberate error" in line for line in lines), lines
    assert any("Content Security Policy" in line for line in lines), lines
