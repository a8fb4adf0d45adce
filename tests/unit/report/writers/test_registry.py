"""Tests for report.writers.registry: every format of every document kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.figures import run_labels
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.report.writers.registry import FORMATS
from tests.unit.report import runs as r
from tests.unit.report.test_golden import _capacity_curve


def test_the_cli_choices() -> None:
    assert FORMATS == ("table", "markdown", "csv", "json", "html")
    assert tuple(registry.COMPARE) == FORMATS  # --format of report and compare
    assert registry.GATE_FORMATS == ("table", "markdown", "json")
    assert tuple(registry.COMBINED) == ("table", "markdown")
    assert tuple(registry.SCALING) == ("table", "markdown")
    assert tuple(registry.STUDY) == ("table", "markdown", "html")  # study's files
    assert tuple(registry.CAPACITY) == ("table", "markdown", "html")


def test_unknown_format_names_the_formats() -> None:
    with pytest.raises(ValueError) as error:
        registry.writer(registry.GATE, "csv")
    assert str(error.value) == (
        "unknown format 'csv'; choose one of table, markdown, json"
    )


def test_unknown_format(reports: list[run_labels.LoadedReport]) -> None:
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        r.write_report(reports, "xml")


def test_every_format_writes_something(comparison_inputs: tuple) -> None:
    for fmt in FORMATS:
        assert r.write_compare(comparison_inputs, fmt).endswith("\n")
    with pytest.raises(ValueError, match="unknown format"):
        r.write_compare(comparison_inputs, "xml")


@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_a_disabled_cache_is_flagged(tmp_path: Path, fmt: str) -> None:
    disabled = r.state()
    disabled["keystone_cache"] = "disabled"
    flagged = r.make_run(tmp_path, "off", [r.workload([0.1] * 3)], disabled)
    stock = r.make_run(tmp_path, "stock", [r.workload([0.1] * 3)], r.state())
    out = r.write_report(run_labels.load_reports([flagged]), fmt)
    assert "cache was disabled ([cache] enabled = false)" in out
    assert "several times slower than a stock Keystone" in out
    assert "cache was disabled" not in r.write_report(
        run_labels.load_reports([stock]), fmt
    )


def test_a_kind_is_written_to_a_file_per_format(tmp_path: Path) -> None:
    paths = {"markdown": tmp_path / "c.md", "html": tmp_path / "c.html"}
    registry.write_files(registry.CAPACITY, _capacity_curve(), paths)
    assert paths["markdown"].read_text().startswith("## Capacity against p95<100ms")
    assert paths["html"].read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(ValueError, match="unknown format 'svg'"):
        registry.write_files(registry.CAPACITY, _capacity_curve(), {"svg": tmp_path})
