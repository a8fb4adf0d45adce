"""State files written atomically."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from rally_keystone_perf.layout import state_files


def test_a_state_file_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "new" / "ab.json"
    state_files.write_json(path, {"b": 1, "a": [1, 2]})
    assert path.read_text().startswith('{\n  "a": [')  # indented, keys sorted
    state_files.write_json(path, {"rounds": 2})
    assert json.loads(path.read_text()) == {"rounds": 2}
    assert [p.name for p in path.parent.iterdir()] == ["ab.json"]  # no scratch


def test_a_state_dataclass_is_written_without_its_folder(tmp_path: Path) -> None:
    @dataclasses.dataclass
    class State:
        folder: Path
        rounds: list[int]

    path = tmp_path / "rounds.json"
    state_files.write_state(path, State(tmp_path, [1, 2]), version=3)
    assert json.loads(path.read_text()) == {"rounds": [1, 2], "version": 3}


def test_a_state_file_reads_back_without_its_version(tmp_path: Path) -> None:
    state_files.write_json(tmp_path / "s.json", {"version": 3, "a": 1})
    assert state_files.read_state(tmp_path / "s.json", "a state") == {"a": 1}
    (tmp_path / "list.json").write_text("[1]")
    with pytest.raises(ValueError, match=r"list.json: not a state \(not a JSON"):
        state_files.read_state(tmp_path / "list.json", "a state")
    with pytest.raises(ValueError, match="none.json: not a state"):
        state_files.read_state(tmp_path / "none.json", "a state")


def test_a_moved_folder_finds_its_recorded_paths_again(tmp_path: Path) -> None:
    moved = tmp_path / "copy"
    (moved / "a" / "run" / "results").mkdir(parents=True)
    (moved / "a" / "run" / "results" / "r.json").write_text("{}")
    old = "/gone/where/ab/a/run/results/r.json"
    assert state_files.relocated(moved, old) == str(moved / "a/run/results/r.json")
    assert state_files.relocated(moved, "/gone/ab/b/x.json") == "/gone/ab/b/x.json"
    here = str(moved / "a" / "run")
    assert state_files.relocated(tmp_path / "elsewhere", here) == here
