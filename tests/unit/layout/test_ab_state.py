"""Tests for rally_keystone_perf.layout.ab_state: ab.json written and read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf.layout import ab_state, state_files


def test_a_folder_without_ab_json_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an A/B folder"):
        ab_state.AbState.load(tmp_path)


def test_ab_json_reads_back_as_written(tmp_path: Path) -> None:
    state = ab_state.AbState(
        folder=tmp_path,
        task="task.json",
        sides={s: {"options": {}} for s in ab_state.SIDES},
        rounds_planned=2,
        status=state_files.DONE,
    )
    state.rounds.append(ab_state.Round(1, "ab", reports={"a": "r1", "b": "r2"}))
    state.rounds.append(ab_state.Round(2, "ba", reports={"b": "r3"}))
    state.save()
    assert json.loads(state.path.read_text())["version"] == ab_state.AbState.VERSION
    loaded = ab_state.AbState.load(tmp_path)
    assert loaded == state
    assert [r.round_no for r in loaded.complete_rounds()] == [1]
