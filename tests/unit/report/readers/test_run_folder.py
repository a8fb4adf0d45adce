"""A run folder's reports as read: each file once, with its run.json."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.readers import run_folder
from rally_keystone_perf.report.readers.rally_json import ReportError

RECORDED = Path(__file__).parents[1] / "recorded" / "runs"


def test_a_report_reached_twice_is_read_once_with_its_run_json() -> None:
    run = RECORDED / "smoke-a"
    (found,) = run_folder.read_reports([run, run / run_folder.RESULTS])
    assert found.path.parent == run / run_folder.RESULTS and found.workloads
    assert found.state is not None and found.state.options


def test_a_run_without_run_json_has_no_state(tmp_path: Path) -> None:
    report = next((RECORDED / "smoke-a" / run_folder.RESULTS).glob("*.json"))
    copy = tmp_path / "elsewhere.json"
    copy.write_text(report.read_text())
    (found,) = run_folder.read_reports([copy])
    assert found.state is None and found.workloads


def test_a_folder_without_reports_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no Rally JSON reports"):
        run_folder.read_reports([tmp_path])
