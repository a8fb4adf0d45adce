"""Tests for report.source (files, run folders, task UUIDs)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.report.readers import source as report_source
from rally_keystone_perf.report.readers.rally_json import ReportError
from tests.unit.report import factory as f
from tests.unit.report import runs as r

UUID = "0123abcd-1111-2222-3333-444455556666"


def _fake_rally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    rally = tmp_path / "bin" / "rally"
    rally.parent.mkdir()
    rally.write_text("#!/bin/sh\n" + script)
    rally.chmod(rally.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(paths, "venv_bin", lambda name: rally.parent / name)


def test_existing_paths_are_returned_as_they_are(tmp_path: Path) -> None:
    report = r.make_run(tmp_path, "a", [r.workload(r.gauss(1, 0.5))], r.state())
    for name in (report, report.parent.parent):
        assert report_source.resolve(str(name), tmp_path, tmp_path) == name


def test_a_missing_file_that_is_no_uuid(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no such file or folder"):
        report_source.resolve(str(tmp_path / "nope.json"), tmp_path, tmp_path)


def test_uuid_found_in_a_run_folder(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    other = r.make_run(runs, "r1", [r.workload([1.0])], report="t-0123abcd.json")
    run = runs / "r2" / "results"
    run.mkdir(parents=True)
    wanted = f.write_report(run / "t-0123abcd.json", [f.task([[]], uuid=UUID)])
    assert other.is_file()  # same 8 characters, another task: not taken
    assert report_source.resolve(UUID.upper(), runs, tmp_path) == wanted


def test_uuid_exported_from_rallys_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # rally task report UUID --json --out FILE: $6 is FILE
    _fake_rally(tmp_path, monkeypatch, 'echo "{}" > "$6"\n')
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    found = report_source.resolve(UUID, tmp_path / "runs", scratch)
    assert found == scratch / "task-0123abcd.json"
    assert found.read_text().strip() == "{}"


def test_uuid_rally_does_not_know(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_rally(
        tmp_path, monkeypatch, f'echo "Task {UUID} is not found." >&2\nexit 1\n'
    )
    with pytest.raises(ReportError) as error:
        report_source.resolve(UUID, tmp_path / "runs", tmp_path)
    message = str(error.value)
    assert "not in any run folder" in message
    assert message.endswith(f"Task {UUID} is not found.")


def test_uuid_without_rally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "venv_bin", lambda name: tmp_path / name)
    with pytest.raises(ReportError, match="rally command is not installed"):
        report_source.resolve(UUID, tmp_path, tmp_path)
