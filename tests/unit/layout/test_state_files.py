"""State files written atomically."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

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
