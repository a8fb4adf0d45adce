"""Tests for rally_keystone_perf.cli.run_commands: the matrix's end tables,
the tasks command."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf import cli, paths
from rally_keystone_perf.cli import run_commands
from rally_keystone_perf.run import matrix
from tests.unit.report import runs as r
from tests.unit.report import scaling_runs as s


def _state(tmp_path: Path) -> matrix.MatrixState:
    folder = tmp_path / "matrix"
    folder.mkdir()
    return matrix.MatrixState(folder, {})


def test_node_counts_add_the_scaling_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = [report.path for report in s.matrix(tmp_path)]
    state = _state(tmp_path)
    run_commands._write_matrix_tables(state, reports)
    out = capsys.readouterr().out
    combined, scaling = out.split("\nthroughput against Keystone nodes:\n")
    assert combined.count("KeystonePerf.create_token") == 5
    cells = [cell.strip() for cell in scaling.splitlines()[3].split("|")]
    assert cells[1:4] == ["1", "8", "2.0"]
    written = (state.folder / "combined.md").read_text()
    table, section = written.split("\n## Throughput against Keystone nodes\n\n")
    assert table.startswith("| mode |") and table.endswith("|\n")
    rows = r.md_tables(section)[0]
    assert rows[2][:3] == ["1", "8", "2.0"] and rows[-1][0] == "4"


def test_one_node_count_is_the_combined_table_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = s.add_run(
        tmp_path, "n1", s.state(1), [s.tokens([0.1] * 4)], [s.listings(2)]
    )
    state = _state(tmp_path)
    run_commands._write_matrix_tables(state, paths)
    assert "Keystone nodes" not in capsys.readouterr().out
    assert "Keystone nodes" not in (state.folder / "combined.md").read_text()


def test_tasks_path_prints_the_folder_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tasks", "--path"]) == 0
    out = capsys.readouterr().out
    assert out == f"{paths.tasks_dir()}\n"
    assert (Path(out.strip()) / "uwsgi" / "create-token-c4-quick.json").is_file()


def test_tasks_write_refuses_an_installs_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    installed = tmp_path / "share" / "tasks"
    installed.mkdir(parents=True)
    monkeypatch.setattr(paths, "tasks_dir", lambda: installed)
    monkeypatch.setattr(paths, "installed_copy", lambda: True)
    assert cli.main(["tasks", "--write"]) == 1
    assert "an install's copy" in capsys.readouterr().err
    assert list(installed.iterdir()) == []  # nothing written
    assert cli.main(["tasks", "--write", "--tasks-dir", str(tmp_path / "mine")]) == 0
    assert list((tmp_path / "mine").glob("*/*.json"))
