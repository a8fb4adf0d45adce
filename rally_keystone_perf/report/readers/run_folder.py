"""A run folder's reports as they are read: Rally's JSON reports in
``<run>/results/*.json`` beside the run's ``run.json`` (its options, its
machine), each file read once (:func:`read_reports`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.layout.rundir import RunState
from rally_keystone_perf.report.readers.rally_json import (
    ReportError,
    Workload,
    load_report,
)

RUN_STATE = "run.json"
RESULTS = "results"


@dataclass(frozen=True)
class ReportFile:
    """One report file read: its workloads, its run folder's run.json."""

    path: Path
    workloads: list[Workload]
    state: RunState | None


def read_run_state(report_path: Path) -> RunState | None:
    """``../run.json`` of a report in ``<run>/results/``; None when absent.

    :raises ReportError: run.json exists but is not a JSON object.
    """
    state_file = Path(report_path).parent.parent / RUN_STATE
    if not state_file.is_file():
        return None
    try:
        state = json.loads(state_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        detail = " ".join(str(exc).split())
        raise ReportError(f"{state_file}: cannot read run state: {detail}") from None
    if not isinstance(state, dict) or not isinstance(state.get("options", {}), dict):
        raise ReportError(f"{state_file}: run state is not a JSON object")
    return RunState.from_json(state)


def report_files(path: Path) -> list[Path]:
    """A report file itself, or the ``*.json`` reports of a run or results folder.

    :raises ReportError: a folder holds no report.
    """
    path = Path(path)
    if not path.is_dir():
        return [path]
    folder = path / RESULTS if (path / RESULTS).is_dir() else path
    files = sorted(folder.glob("*.json"))
    if not files:
        raise ReportError(f"{path}: no Rally JSON reports (*.json) in {folder}")
    return files


def distinct(files: Iterable[Path]) -> list[Path]:
    """``files`` in order, a file reached twice (through a ``current`` link,
    or given twice) kept once under the first of its paths."""
    first: dict[Path, Path] = {}
    for path in files:
        first.setdefault(Path(path).resolve(), Path(path))
    return list(first.values())


def read_reports(paths: Sequence[Path]) -> list[ReportFile]:
    """Every report of ``paths`` (a folder stands for its reports:
    :func:`report_files`; a file reached twice read once: :func:`distinct`)
    with its run.json.

    :raises ReportError: a file cannot be read or is not a Rally 1.2 report.
    """
    files = distinct([file for given in paths for file in report_files(given)])
    return [ReportFile(path, load_report(path), read_run_state(path)) for path in files]
