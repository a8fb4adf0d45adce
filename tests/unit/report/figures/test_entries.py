"""The report model: each file's entries, its run.json read once."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.figures import run_labels
from rally_keystone_perf.report.figures.entries import report_entries

RECORDED = Path(__file__).parents[1] / "recorded" / "runs" / "smoke-a"


def test_a_run_folder_s_run_json_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[Path] = []
    read_text = Path.read_text

    def counting(path: Path, *args: object, **kwargs: object) -> str:
        if path.name == "run.json":
            reads.append(path)
        return read_text(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", counting)
    (loaded,) = run_labels.load_reports([RECORDED])
    (item,) = report_entries([loaded])
    assert reads == [RECORDED / "run.json"]
    assert loaded.state is not None and item.server is not None
    assert item.server.cpus == loaded.state.cpus and item.entries
    assert item.config == loaded.config and item.config["mode"]
