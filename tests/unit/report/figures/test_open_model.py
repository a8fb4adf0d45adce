"""Tests for rally_keystone_perf.report.figures.open_model (through Rally's
own exporter: the records the runner makes, as ``rally task report`` keeps
them)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.report.blocks.workload import open_model_lines
from rally_keystone_perf.report.figures import open_model
from rally_keystone_perf.report.readers.rally_json import Workload, load_report
from tests.unit.report import factory as f
from tests.unit.report.blocks.test_workload import render_report

RUNNER = {"rate": 10, "times": 20, "max_in_flight": 8}


def _served(intended: float, lag: float, service: float) -> dict:
    """An iteration started ``lag`` late whose request took ``service``."""
    start = intended + lag
    actions = [f.atomic("keystone.list_projects", start, start + service)]
    done = f.iteration(start, service, atomics=actions)
    return arrivals.response_record(done, intended)


def _workload(tmp_path: Path, data: list[dict], runner_type: str) -> Workload:
    raw = f.workload(data, runner_type=runner_type, runner=RUNNER)
    path = f.write_report(tmp_path / "report.json", [f.task([[raw]])])
    (loaded,) = load_report(path)
    return loaded


def test_response_service_lag_and_drops(tmp_path: Path) -> None:
    data = [_served(100 + n / 10, 0.001, 0.050) for n in range(18)]
    data += [arrivals.dropped_record(101.8 + n / 10, 8) for n in range(2)]
    model = open_model.open_model(_workload(tmp_path, data, arrivals.RUNNER))
    assert model is not None
    assert (model.due, model.dropped, model.cap, model.rate) == (20, 2, 8, 10.0)
    assert model.response[0] == pytest.approx(0.051)  # waited 1 ms, served 50
    assert model.service[0] == pytest.approx(0.050)
    assert model.lag == pytest.approx((0.001, 0.001))
    assert model.late_share == 0 and not model.generator_limited
    lines = open_model_lines(model)
    assert lines[0] == (
        "open model: 10 iterations/s asked, 20 due, 18 started, 2 dropped "
        "(max_in_flight 8)"
    )
    assert lines[1].endswith(": 51.0 / 51.0 / 51.0")
    assert lines[2].endswith(": 50.0 / 50.0 / 50.0")
    assert "0% started over 5 ms late" in lines[3]
    assert len(lines) == 4


def test_a_late_generator_is_named_as_the_limit(tmp_path: Path) -> None:
    data = [_served(100 + n / 10, 0.020 * (n % 2), 0.050) for n in range(20)]
    model = open_model.open_model(_workload(tmp_path, data, arrivals.RUNNER))
    assert model is not None and model.late_share == 0.5
    assert model.generator_limited
    said = open_model_lines(model)[-1]
    assert said.startswith("  the load generator, not Keystone, was the limit")


@pytest.mark.parametrize(("late", "limited"), [(1, False), (2, False), (3, True)])
def test_a_few_late_starts_in_a_small_sample_are_not_the_generators_limit(
    tmp_path: Path, late: int, limited: bool
) -> None:
    data = [_served(100 + n / 5, 0.010 * (n < late), 0.1) for n in range(15)]
    model = open_model.open_model(_workload(tmp_path, data, arrivals.RUNNER))
    assert model is not None and model.late == late and model.late_share > 0.05
    assert model.generator_limited is limited


def test_a_closed_model_workload_has_none(tmp_path: Path) -> None:
    data = [f.iteration(100 + n, 0.05) for n in range(3)]
    assert open_model.open_model(_workload(tmp_path, data, "constant")) is None


def test_the_text_report_prints_it(tmp_path: Path) -> None:
    data = [_served(100 + n / 10, 0.001, 0.050) for n in range(5)]
    workload = _workload(tmp_path, data, arrivals.RUNNER)
    out = io.StringIO()
    render_report([workload], out)
    assert "open model: 10 iterations/s asked, 5 due, 5 started" in out.getvalue()
