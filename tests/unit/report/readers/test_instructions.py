"""instructions.json read back: absent, readable, or refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf.layout.counts import COUNTS_FILE
from rally_keystone_perf.report.readers import instructions
from rally_keystone_perf.report.readers.rally_json import ReportError
from rally_keystone_perf.run.instructions import write_counts

CREATE, VALIDATE = "KeystonePerf.create_token", "KeystonePerf.validate_token"


def write(
    folder: Path,
    a: list[float],
    b: list[float],
    reads: tuple[list[float], list[float]] | None = None,
) -> None:
    """Counts of the gate task's two workloads: per request on A and B, and
    with ``reads`` (A's, B's) their SQL statements (counts before them
    had none)."""

    def side(values: list[float], read: list[float] | None) -> dict[str, object]:
        workloads: list[dict[str, object]] = [
            {"position": n, "scenario": s, "per_request": v, "spread": 0.001}
            for n, (s, v) in enumerate(zip((CREATE, VALIDATE), values, strict=True))
        ]
        for workload, n in zip(workloads, read or [], strict=False):
            workload["statements_per_request"] = {
                **{"read": n, "write": 0.0, "transaction": 2 * n},
                **{"pragma": 1.0, "other": 0.0},
            }
        return {"workloads": workloads}

    folder.mkdir(parents=True, exist_ok=True)
    write_counts(
        folder,
        {
            "version": 1,
            "conditions": {"password_hash_rounds": 4, "process": "one process"},
            "sides": {
                "a": side(a, reads[0] if reads else None),
                "b": side(b, reads[1] if reads else None),
            },
        },
    )


def test_absent_is_none(tmp_path: Path) -> None:
    assert instructions.load(tmp_path) is None


def test_read_by_position(tmp_path: Path) -> None:
    write(tmp_path, [100.0, 200.0], [101.0, 250.0])
    found = instructions.load(tmp_path)
    assert found is not None
    assert found.sides["b"][1].per_request == 250.0
    assert found.sides["a"][0].scenario == CREATE
    assert found.conditions["password_hash_rounds"] == 4


def test_statements_read_when_counted(tmp_path: Path) -> None:
    write(tmp_path, [100.0, 200.0], [101.0, 250.0], ([3.0, 64.0], [3.0, 65.0]))
    found = instructions.load(tmp_path)
    assert found is not None
    assert found.sides["b"][1].statements == {
        **{"read": 65.0, "write": 0.0, "transaction": 130.0},
        **{"pragma": 1.0, "other": 0.0},
    }
    write(tmp_path, [100.0, 200.0], [101.0, 250.0])  # counted before them
    older = instructions.load(tmp_path)
    assert older is not None and older.sides["a"][0].statements is None


def test_another_version_is_refused(tmp_path: Path) -> None:
    (tmp_path / COUNTS_FILE).write_text(json.dumps({"version": 9}))
    with pytest.raises(ReportError, match="version 9"):
        instructions.load(tmp_path)
