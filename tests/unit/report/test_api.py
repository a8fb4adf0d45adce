"""Tests for report.api: the pipelines the CLI and the benchmarks call."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rally_keystone_perf.report import api
from rally_keystone_perf.report.figures import run_labels
from rally_keystone_perf.report.writers import registry
from tests.unit.report import runs as r


def _runs(tmp_path: Path) -> tuple[Path, Path]:
    fast = r.make_run(tmp_path, "fast", [r.workload(r.gauss(1, 0.2))], r.state())
    slow = r.make_run(
        tmp_path, "slow", [r.workload(r.gauss(2, 0.4))], r.state(processes=4)
    )
    return fast, slow


def test_report_is_load_compute_write(tmp_path: Path) -> None:
    fast, slow = _runs(tmp_path)
    stream = io.StringIO()
    api.report([fast, slow.parent.parent], stream, "json")
    document = json.loads(stream.getvalue())
    assert len(document["reports"]) == 2
    loaded = run_labels.load_reports([fast, slow])
    assert stream.getvalue() == r.write_report(loaded, "json")


def test_combined_report(tmp_path: Path) -> None:
    fast, slow = _runs(tmp_path)
    stream = io.StringIO()
    api.report([fast, slow], stream, "markdown", combine=True)
    assert stream.getvalue().count("| KeystonePerf.create_token |") == 2
    with pytest.raises(ValueError, match="--combined writes table or markdown only"):
        api.report([fast], io.StringIO(), "csv", combine=True)


def test_compare_pipeline(tmp_path: Path) -> None:
    fast, slow = _runs(tmp_path)
    stream = io.StringIO()
    api.compare([fast, slow], stream, "json", alpha=0.01)
    document = json.loads(stream.getvalue())
    assert (document["baseline"], document["alpha"]) == ("uwsgi p2xt1", 0.01)
    result = api.compare_runs(run_labels.load_runs([fast, slow]), alpha=0.01)
    steps = io.StringIO()
    registry.write(registry.COMPARE, result, steps, "json")
    assert steps.getvalue() == stream.getvalue()


def test_gate_pipeline(tmp_path: Path) -> None:
    fast, slow = _runs(tmp_path)
    run = api.gate(str(slow), str(fast), tmp_path / "runs")
    assert (run.baseline.label, run.current.label) == ("uwsgi p2xt1", "uwsgi p4xt1")
    assert (run.baseline_path, run.current_path) == (fast, slow)
    assert not run.result.passed
    assert run.headline().startswith("gate FAILED: ")
    assert run.junit_xml().startswith('<?xml version="1.0" encoding="UTF-8"?>')
