"""Golden copies of the pages users see, on folders recorded in tests/.

Each case runs one command through the CLI (``report``, ``compare``,
``gate``, ``ab --show``) on folders under ``recorded/`` (real runs, trimmed:
``recorded/README.rst`` says where each came from), or builds the study's
or the releases' page from a recorded ``rounds.json``
(:mod:`rally_keystone_perf.report.pages`), or the capacity page from a
search's curve built here, in every format it writes. What
the user sees (exit code, standard output, standard error) is compared
with ``golden/<case>.<format>``.

``GOLDEN_UPDATE=1 pytest tests/unit/report/test_golden.py`` rewrites the
copies: review their diff, and name every change in the closing note.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from rally_keystone_perf.cli.app import main
from rally_keystone_perf.layout.rounds_state import RoundsState
from rally_keystone_perf.report import pages
from rally_keystone_perf.report.figures import capacity_curve, capacity_step, slo
from rally_keystone_perf.report.readers import instructions as instruction_counts
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.run.releases import Failure
from rally_keystone_perf.studies import registry as studies

HERE = Path(__file__).parent
RECORDED = HERE / "recorded"
GOLDEN = HERE / "golden"
ALL = ("table", "markdown", "csv", "json", "html")

COMMANDS: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "report": (["report", "runs/smoke-a"], ALL),
    "report-two": (["report", "runs/smoke-a", "runs/smoke-b"], ("table", "json")),
    "report-combined": (
        ["report", "--combined", "runs/smoke-a", "runs/smoke-b"],
        ("table", "markdown"),
    ),
    "report-trends": (["report", "--trends", "runs"], ("table", "markdown", "json")),
    "report-study-run": (
        ["report", "study-002/apache-memcached/20261128-114620-apache"],
        ("table", "markdown"),
    ),
    "compare": (["compare", "runs/smoke-a", "runs/smoke-b"], ALL),
    "gate": (
        ["gate", "--baseline", "runs/smoke-a", "runs/smoke-b"],
        ("table", "markdown", "json"),
    ),
    "ab-cloud": (["ab", "--show", "ab-cloud"], ("table", "markdown", "json")),
    "ab-instructions": (
        ["ab", "--show", "ab-instructions"],
        ("table", "markdown", "json"),
    ),
}


def _seen(code: int, out: str, err: str) -> str:
    """What the user saw, the recorded folder's place made constant."""
    seen = f"exit {code}\n--- stdout\n{out}--- stderr\n{err}"
    return seen.replace(str(RECORDED), "<recorded>")


def _check(name: str, seen: str) -> None:
    golden = GOLDEN / name
    if os.environ.get("GOLDEN_UPDATE"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(seen, encoding="utf-8")
    assert golden.exists(), f"no golden copy {golden}: run with GOLDEN_UPDATE=1"
    expected = golden.read_text(encoding="utf-8")
    assert seen == expected, f"{name} changed: GOLDEN_UPDATE=1 shows the diff"


@pytest.mark.parametrize(
    ("case", "fmt"),
    [(case, fmt) for case, (_, formats) in COMMANDS.items() for fmt in formats],
)
def test_a_command_prints_what_it_printed(
    case: str,
    fmt: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(RECORDED)
    argv, _ = COMMANDS[case]
    code = main([*argv, "--format", fmt])
    captured = capsys.readouterr()
    _check(f"{case}.{fmt}", _seen(code, captured.out, captured.err))


def _study_page(fmt: str) -> str:
    study = studies.study("002")
    state = RoundsState.load(RECORDED / "study-002")
    page = pages.study_in_rounds(study, "quick", study.levels(), state.reports(), 2)
    stream = io.StringIO()
    registry.writer(registry.STUDY, fmt)(page, stream)
    return stream.getvalue()


def _releases_page(fmt: str, counted: bool = False) -> str:
    """The releases' page on the two smoke runs, as two releases measured
    in two rounds (the second with the runs swapped), a third left out;
    ``counted``: with the counts of ``releases-counts`` (29.0.0 and 30.0.0
    of a real ``releases`` run)."""
    a = RECORDED / "runs/smoke-a/results/smoke-aa5c7edc.json"
    b = RECORDED / "runs/smoke-b/results/smoke-df3595c7.json"
    reports = [{"29.0.0": a, "30.0.0": b}, {"29.0.0": b, "30.0.0": a}]
    page = pages.releases(
        "quick",
        "uwsgi",
        ["29.0.0", "30.0.0", "31.0.0"],
        ["29.0.0", "30.0.0"],
        reports,
        3,
        [Failure("31.0.0", "install", "pip said: no matching distribution")],
        "the suite's",
        instruction_counts.load(RECORDED / "releases-counts") if counted else None,
    )
    stream = io.StringIO()
    registry.writer(registry.RELEASES, fmt)(page, stream)
    return stream.getvalue()


@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_the_study_page_is_what_it_was(fmt: str) -> None:
    _check(f"study-002.{fmt}", _seen(0, _study_page(fmt), ""))


@pytest.mark.parametrize("fmt", ["table", "markdown", "html", "svg"])
def test_the_releases_page_is_what_it_was(fmt: str) -> None:
    _check(f"releases.{fmt}", _seen(0, _releases_page(fmt), ""))


@pytest.mark.parametrize("fmt", ["table", "svg"])
def test_the_counted_releases_page_is_what_it_was(fmt: str) -> None:
    _check(f"releases-counted.{fmt}", _seen(0, _releases_page(fmt, True), ""))


def _capacity_curve() -> capacity_curve.Curve:
    """A search of five steps (one rate tried twice, one without a probe or
    a p99, one without CPU samples), sustained at 20/s under two bounds."""
    objective = slo.parse_slo("p95<100ms,p99<250ms,success>=99%")
    steps = [
        (1, 10.0, (0.021, 0.03, 0.045), (), (("Keystone", 0.81), ("client", 0.1))),
        (2, 40.0, (0.09, 0.2, None), ("p95",), (("Keystone", 1.93),)),
        (3, 20.0, (0.031, 0.05, 0.08), (), (("Keystone", 1.62), ("mysql", 0.2))),
        (4, 30.0, (0.06, 0.12, 0.3), ("p95", "p99"), ()),
        (5, 20.0, (0.033, 0.052, 0.081), (), (("Keystone", 1.6),)),
    ]
    rows = [
        capacity_curve.CurveRow(
            number,
            capacity_step.StepFigures(
                rate, rate * 0.98, int(rate * 10), 1, 0, response, misses, False
            ),
            tiers,
            f"Keystone CPU {int(rate * 4)}% of 2 cores" if tiers else None,
            probe=None if number == 2 else 0.2 + number / 100,
        )
        for number, rate, response, misses, tiers in steps
    ]
    rows.sort(key=lambda row: (row.figures.offered, row.number))
    rule = "double until missed, then bisect to 10%"
    return capacity_curve.Curve(
        objective, rows, 20.0, 30.0, "the bracket is narrower than 10%", rule
    )


def _capacity_page(fmt: str) -> str:
    stream = io.StringIO()
    registry.writer(registry.CAPACITY, fmt)(_capacity_curve(), stream)
    return stream.getvalue()


@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_the_capacity_page_is_what_it_was(fmt: str) -> None:
    _check(f"capacity.{fmt}", _seen(0, _capacity_page(fmt), ""))
