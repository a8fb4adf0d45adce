"""The calibration benchmark's schedule and its slowed Keystone's patch."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import keystone.api.auth
import pytest

from benchmarks import ab_calibration
from rally_keystone_perf.layout.counts import COUNTS_FILE


def test_schedule_takes_the_kinds_in_turns() -> None:
    order = ab_calibration.schedule(aa=3, ten=2, twenty=1)
    assert order == ["A/A", "+10%", "+20%", "A/A", "+10%", "A/A"]
    assert len(ab_calibration.schedule(10, 10, 5)) == 25


def test_the_extra_cost_runs_once_in_token_validation_only() -> None:
    text = Path(keystone.api.auth.__file__).read_text()
    patched = ab_calibration.patched(text, 1234)
    assert patched.count(ab_calibration.CALL) == 1
    handler = patched.index(ab_calibration.HANDLER)
    call = patched.index(ab_calibration.CALL)
    next_class = patched.find("\nclass ", handler + 1)
    assert handler < call < next_class  # inside AuthTokenResource
    assert "def _calibration_extra_cost(iterations=1234):" in patched
    namespace: dict[str, object] = {}
    exec(ab_calibration.FUNCTION.format(iterations=10), namespace)  # noqa: S102
    assert namespace["_calibration_extra_cost"]() == sum(i * i for i in range(10))  # type: ignore[operator]


def test_each_kind_is_counted_once_and_lent_to_its_ab_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kinds = ["A/A", "+10%", "A/A"]
    lines = [json.dumps({"index": n, "kind": k}) for n, k in enumerate(kinds)]
    (tmp_path / "calibration.jsonl").write_text("\n".join(lines) + "\n")
    for n in range(len(kinds)):
        (tmp_path / f"ab-{n + 1:02d}").mkdir()
    counted: list[tuple[str, int, tuple[str, ...]]] = []

    def run_ab(
        args: Any, folder: Path, task: Path, b_ref: str, *more: str, rounds: int
    ) -> float:
        counted.append((b_ref, rounds, more))
        folder.mkdir()
        (folder / COUNTS_FILE).write_text(json.dumps({"b": b_ref}))
        return 1.0

    monkeypatch.setattr(ab_calibration, "run_ab", run_ab)
    args = argparse.Namespace(work=tmp_path, rounds=8, neighbour=None)
    refs = {"A/A": "30.0.0", "+10%": "slow-10"}
    ab_calibration.count_kinds(args, tmp_path / "task.json", refs)
    assert counted == [
        ("30.0.0", 0, ("--instructions",)),
        ("slow-10", 0, ("--instructions",)),
    ]
    lent = json.loads((tmp_path / "ab-03" / COUNTS_FILE).read_text())
    assert lent == {"b": "30.0.0"}
    assert "counts-10" in (tmp_path / "ab-02" / "counts-from.txt").read_text()
    # again: nothing counted anew
    ab_calibration.count_kinds(args, tmp_path / "task.json", refs)
    assert len(counted) == 2
