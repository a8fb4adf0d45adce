"""Tests for rally_keystone_perf.report.figures.concurrency and where reports show it.

The figures are computed by hand from each example's iterations
(``(timestamp, duration)``; an iteration is in flight over
``[timestamp, timestamp + duration)``).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.report import api
from rally_keystone_perf.report.figures import combined, run_labels
from rally_keystone_perf.report.figures import concurrency as c
from rally_keystone_perf.report.readers.rally_json import Workload, load_report
from rally_keystone_perf.report.writers import registry
from tests.unit.report import factory as f
from tests.unit.report import runs as r
from tests.unit.report.blocks.test_combined import combined_table

it = f.iteration
NOTE = (
    "asked 1000 concurrent, reached 266: the load generator, not Keystone, set "
    "this figure"
)
SEED_003 = {"duration": 20, "concurrency": 1000}


def _load(
    tmp_path: Path,
    data: list[dict],
    runner_type: str = "constant",
    runner: dict[str, Any] | None = None,
) -> Workload:
    """One workload exported by Rally's exporter and loaded back."""
    runner = (
        {"times": max(len(data), 1), "concurrency": 2} if runner is None else runner
    )
    workload = f.workload(data, runner_type=runner_type, runner=runner)
    path = f.write_report(tmp_path / "report.json", [f.task([[workload]])])
    (loaded,) = load_report(path)
    return loaded


def _seed_003(count: int = 266) -> dict[str, Any]:
    """constant_for_duration asked for 1000, ``count`` iterations overlapping."""
    data = [it(i / 1000, 1.0) for i in range(count)]
    return f.workload(data, runner_type="constant_for_duration", runner=SEED_003)


# --- the computation ----------------------------------------------------------


def test_sequential_iterations_peak_1_mean_is_the_busy_fraction(
    tmp_path: Path,
) -> None:
    # busy 1 + 1 + 2 = 4 s of the window 0..6 s
    load = c.achieved(_load(tmp_path, [it(0.0, 1.0), it(2.0, 1.0), it(4.0, 2.0)]))
    assert load.peak == 1
    assert load.mean == pytest.approx(4 / 6)
    assert load.rate == pytest.approx(3 / 6)
    assert load.asked_concurrency == 2


def test_two_overlapping_iterations(tmp_path: Path) -> None:
    # [0, 2) and [1, 3): two in flight over [1, 2); 4 s in flight over 3 s
    load = c.achieved(_load(tmp_path, [it(0.0, 2.0), it(1.0, 2.0)]))
    assert load.peak == 2
    assert load.mean == pytest.approx(4 / 3)


def test_an_end_at_the_instant_of_a_start_counts_before_it(tmp_path: Path) -> None:
    load = c.achieved(_load(tmp_path, [it(0.0, 1.0), it(1.0, 1.0), it(2.0, 0.5)]))
    assert load.peak == 1
    assert load.mean == pytest.approx(1.0)


def test_peak_of_nested_iterations(tmp_path: Path) -> None:
    # at 2.5: [0, 10), [2, 3), [2.5, 3.5); [1, 2) ended at 2
    data = [it(0.0, 10.0), it(1.0, 1.0), it(2.0, 1.0), it(2.5, 1.0)]
    load = c.achieved(_load(tmp_path, data))
    assert load.peak == 3
    assert load.mean == pytest.approx(13 / 10)


def test_failed_iterations_are_in_flight_for_their_duration(tmp_path: Path) -> None:
    data = [it(0.0, 2.0, error=("HttpError", "boom")), it(1.0, 2.0)]
    load = c.achieved(_load(tmp_path, data))
    assert load.peak == 2
    assert load.mean == pytest.approx(4 / 3)


def test_idle_duration_is_neither_in_flight_nor_in_the_load_window(
    tmp_path: Path,
) -> None:
    # in flight [0, 1) and [0.5, 1.5); the window (report.stats, Rally's
    # load_duration) ends at the last timestamp + duration, 1.5, not at
    # 0 + 1 + 2 of idle = 3; counting idle time would keep both until 1.5
    data = [it(0.0, 1.0, idle_duration=2.0), it(0.5, 1.0), it(1.2, 0.2)]
    load = c.achieved(_load(tmp_path, data))
    assert load.peak == 2
    assert load.mean == pytest.approx(2.2 / 1.5)
    assert load.rate == pytest.approx(3 / 1.5)


def test_empty_workload(tmp_path: Path) -> None:
    load = c.achieved(_load(tmp_path, [], runner={"times": 1, "concurrency": 5}))
    assert (load.peak, load.mean, load.rate, load.iterations) == (0, None, None, 0)
    assert c.under_reached(load) is None  # nothing ran: not the generator's doing
    assert c.achieved_line(load) == (
        "concurrency: asked 5, reached 0 at peak, n/a in flight on average"
    )


def test_zero_length_iterations_are_never_in_flight(tmp_path: Path) -> None:
    load = c.achieved(_load(tmp_path, [it(1.0, 0.0), it(1.0, 0.0)]))
    assert (load.peak, load.mean, load.rate) == (0, None, None)


@pytest.mark.parametrize(
    ("runner_type", "runner", "asked"),
    [
        ("constant", {"times": 3}, 1),  # Rally's default
        ("constant_for_duration", {"duration": 5, "concurrency": 7}, 7),
        ("serial", {"times": 3}, 1),
        ("serial", {"times": 3, "concurrency": 5}, 1),  # Rally's serial ignores it
        ("rps", {"times": 3, "rps": 5, "max_concurrency": 2}, None),
    ],
)
def test_asked_concurrency(
    tmp_path: Path, runner_type: str, runner: dict, asked: int | None
) -> None:
    load = c.achieved(_load(tmp_path, [it(0.0, 0.1)], runner_type, runner))
    assert load.asked_concurrency == asked


@pytest.mark.parametrize(
    ("runner_type", "runner", "configured"),
    [
        ("constant", {"times": 3, "concurrency": 4}, 4),
        ("constant", {"times": 3}, None),  # as written: compare matches on it
        ("constant_for_duration", {"duration": 5, "concurrency": 7}, 7),
        ("serial", {"times": 3}, 1),  # seed 001's sequential tests
        ("serial", {"times": 3, "concurrency": 5}, 1),
        ("rps", {"times": 3, "rps": 5, "max_concurrency": 2}, None),
    ],
)
def test_runner_concurrency(
    tmp_path: Path, runner_type: str, runner: dict, configured: int | None
) -> None:
    workload = _load(tmp_path, [it(0.0, 0.1)], runner_type, runner)
    assert c.runner_concurrency(workload) == configured


# --- the note -------------------------------------------------------------------


def test_seed_003_note(tmp_path: Path) -> None:
    path = f.write_report(tmp_path / "r.json", [f.task([[_seed_003()]])])
    load = c.achieved(load_report(path)[0])
    assert (load.asked_concurrency, load.peak) == (1000, 266)
    assert c.under_reached(load) == NOTE
    assert c.achieved_line(load).startswith("concurrency: asked 1000, reached 266")


@pytest.mark.parametrize(("reached", "noted"), [(9, False), (8, True), (10, False)])
def test_a_note_below_90_percent(tmp_path: Path, reached: int, noted: bool) -> None:
    data = [it(0.0, 1.0)] * reached
    load = c.achieved(_load(tmp_path, data, runner={"times": 10, "concurrency": 10}))
    assert load.peak == reached
    assert (c.under_reached(load) is not None) is noted


@pytest.mark.parametrize(
    ("rps", "note"),
    [
        (8, None),
        (
            16,
            "asked 16 iterations/s, reached 8.00: the load generator, not "
            "Keystone, set this figure",
        ),
        ({"start": 1, "end": 20, "step": 1}, None),  # a ramp: no single target
    ],
)
def test_rps_rate(tmp_path: Path, rps: Any, note: str | None) -> None:
    # 8 starts 1/8 s apart (exact in binary), 1/8 s each: the window is 0..1 s
    data = [it(i / 8, 0.125) for i in range(8)]
    load = c.achieved(_load(tmp_path, data, "rps", {"times": 8, "rps": rps}))
    assert load.rate == pytest.approx(8.0)
    assert load.peak == 1
    assert c.under_reached(load) == note
    assert c.achieved_line(load).startswith("rate: ")
    assert "reached 8.00 iterations/s; concurrency: reached 1 at peak" in (
        c.achieved_line(load)
    )


def test_the_arrival_rate_runner_is_asked_for_its_rate(tmp_path: Path) -> None:
    """Its rate is its starts', not its ends' (those follow Keystone)."""
    data = [it(i / 8, 0.125 + i) for i in range(8)]  # a queue: ends drift
    config = {"times": 8, "rate": 16, "max_in_flight": 4}
    load = c.achieved(_load(tmp_path, data, "keystone_perf_arrival_rate", config))
    assert load.open_loop and load.asked_concurrency is None
    assert load.asked_rate == 16.0
    assert "asked 16 iterations/s, reached 8.00" in (c.under_reached(load) or "")


# --- counterparts (compare and gate) ------------------------------------------


def _achieved(peak: int, runner_type: str = "constant", rate: float = 1.0):
    return c.Achieved(runner_type, 10, 1000, peak, None, None, rate)


@pytest.mark.parametrize(
    ("current", "baseline", "expected"),
    [
        (266, 1000, "concurrency 266 vs 1000"),
        (1000, 266, "concurrency 1000 vs 266"),
        (9, 10, None),  # 10%: not more
        (11, 10, None),
        (8, 10, "concurrency 8 vs 10"),
        (4, 4, None),
    ],
)
def test_mismatch_is_on_the_peak(
    current: int, baseline: int, expected: str | None
) -> None:
    assert c.mismatch(_achieved(baseline), _achieved(current)) == expected


def test_mismatch_of_rps_is_on_the_rate() -> None:
    # peaks differ (a slower Keystone, the same rate): comparable
    base, cur = _achieved(2, "rps", 10.0), _achieved(20, "rps", 9.5)
    assert c.mismatch(base, cur) is None
    slow = _achieved(2, "rps", 5.0)
    assert c.mismatch(base, slow) == "rate 5.00/s vs 10.00/s"
    assert c.mismatch(_achieved(2), slow) == "runner rps vs constant"


def test_no_mismatch_with_an_empty_side() -> None:
    empty = c.Achieved("constant", 0, 4, 0, None, None, None)
    assert c.mismatch(_achieved(4), empty) is None
    assert c.mismatch(empty, _achieved(4)) is None


# --- the report's formats -------------------------------------------------------


@pytest.fixture
def reports(tmp_path: Path) -> list[run_labels.LoadedReport]:
    """A run with the seed 003 workload and one that reached its concurrency."""
    reached = r.workload([0.2] * 8, concurrency=4, slots=4, position=1)
    r.make_run(tmp_path, "seed", [_seed_003(), reached], r.state())
    return run_labels.load_reports([tmp_path / "seed"])


def _write(reports: list[run_labels.LoadedReport], fmt: str) -> str:
    stream = io.StringIO()
    api.write_report(reports, stream, fmt)
    return stream.getvalue()


@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_text_formats_show_reached_and_note_once(
    reports: list[run_labels.LoadedReport], fmt: str
) -> None:
    out = _write(reports, fmt)
    assert out.count(NOTE) == 1
    # 266 s in flight over 1.265 s; 8 x 0.21 s over 1.21 s
    assert "concurrency: asked 1000, reached 266 at peak, 210.3 in flight" in out
    assert "concurrency: asked 4, reached 4 at peak, 1.4 in flight" in out
    assert out.count("the load generator, not Keystone") == 1
    if fmt == "markdown":
        assert f"**{NOTE}**" in out
    if fmt == "html":
        assert f'<p class="note">{NOTE}</p>' in out


def test_json_fields(reports: list[run_labels.LoadedReport]) -> None:
    seed, reached = json.loads(_write(reports, "json"))["reports"][0]["workloads"]
    assert seed["achieved"] == {
        "asked_concurrency": 1000,
        "peak_concurrency": 266,
        "mean_concurrency": pytest.approx(266 / 1.265),
        "asked_rps": None,
        "rate": pytest.approx(266 / 1.265),
        "under_reached": NOTE,
    }
    assert reached["achieved"]["peak_concurrency"] == 4
    assert reached["achieved"]["under_reached"] is None


def test_csv_fields(reports: list[run_labels.LoadedReport]) -> None:
    rows = list(csv.DictReader(io.StringIO(_write(reports, "csv"))))
    seed = [row for row in rows if row["scenario"] == f.SCENARIO]
    assert {row["peak_concurrency"] for row in seed} == {"266"}
    assert {row["asked_concurrency"] for row in seed} == {"1000"}
    assert {row["under_reached"] for row in seed} == {NOTE}
    other = [row for row in rows if row["scenario"] == r.SCENARIO]
    assert {(row["peak_concurrency"], row["under_reached"]) for row in other} == {
        ("4", "")
    }


def test_combined_table_columns_and_note(
    reports: list[run_labels.LoadedReport],
) -> None:
    header, rows = combined_table(combined.combined_rows(reports))
    seed, reached = (dict(zip(header, row, strict=True)) for row in rows)
    assert (seed["concurrency"], seed["peak in flight"]) == ("1000", "266")
    assert seed["mean in flight"] == "210.3"
    assert seed["rps reached"] == "-"
    assert seed["note"] == NOTE
    assert (reached["peak in flight"], reached["note"]) == ("4", "")
    stream = io.StringIO()
    registry.write(
        registry.COMBINED, combined.combined_rows(reports), stream, "markdown"
    )
    assert stream.getvalue().count(NOTE) == 1


def test_combined_rps_column(tmp_path: Path) -> None:
    data = [it(i / 8, 0.125) for i in range(8)]
    workload = f.workload(data, runner_type="rps", runner={"times": 8, "rps": 16})
    reports = run_labels.load_reports([r.make_run(tmp_path, "rps", [workload], None)])
    header, (row,) = combined_table(combined.combined_rows(reports))
    assert dict(zip(header, row, strict=True))["rps reached"] == "8.00 of 16"
