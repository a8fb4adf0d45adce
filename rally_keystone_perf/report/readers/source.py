"""Turn what a user names on the command line into Rally JSON report files.

A name is a Rally JSON report file, a run folder (its ``results/*.json``) or a
Rally task UUID. A UUID is looked up first among the run folders under the
runs directory (each task ``run`` made is exported there as
``<task>-<uuid8>.json``), then in the Rally database of the user's default
configuration, with the export ``run`` makes
(:func:`rally_keystone_perf.run.rally_runner.export_args`).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from rally_keystone_perf.report.readers.rally_json import ReportError

UUID_RE = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I
)


def _task_uuids(report: Path) -> set[str]:
    """The task UUIDs a report file holds (empty if it is not readable JSON)."""
    try:
        document = json.loads(report.read_text(encoding="utf-8"))
        return {str(task.get("uuid")) for task in document.get("tasks", [])}
    except (OSError, ValueError, AttributeError, TypeError):
        return set()


def find_in_runs(uuid: str, runs_dir: Path) -> Path | None:
    """The exported report of task ``uuid`` in a run folder under ``runs_dir``."""
    pattern = f"*/results/*-{uuid[:8].lower()}.json"
    for candidate in sorted(runs_dir.glob(pattern)):
        if uuid.lower() in {u.lower() for u in _task_uuids(candidate)}:
            return candidate
    return None


def export_from_rally(uuid: str, out_dir: Path) -> Path:
    """Export task ``uuid`` from the default Rally database into ``out_dir``.

    :raises ReportError: rally is missing or does not know the task.
    """
    # the report reads a run folder without the code that wrote it; only a
    # task missing from every run folder needs the command that runs Rally
    from rally_keystone_perf.run import rally_runner  # costly: run/ and deploy/

    try:
        rally = rally_runner.find_rally()
    except rally_runner.RallyError:
        raise ReportError(
            f"{uuid}: not a file, and the rally command is not installed"
        ) from None
    out = out_dir / f"task-{uuid[:8]}.json"
    result = subprocess.run(
        [rally, *rally_runner.export_args(uuid, out)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if result.returncode != 0 or not out.is_file():
        lines = (result.stdout + result.stderr).strip().splitlines()
        reason = lines[-1] if lines else f"rally exited {result.returncode}"
        raise ReportError(
            f"{uuid}: no such report file, not in any run folder, and Rally's "
            f"default database cannot export it: {reason}"
        )
    return out


def resolve(name: str, runs_dir: Path, scratch: Path) -> Path:
    """A path ``load_runs`` accepts for ``name`` (see the module docstring).

    ``scratch`` is a folder for reports exported from Rally's database.

    :raises ReportError: ``name`` is neither an existing path nor a known task.
    """
    path = Path(name)
    if path.exists():
        return path
    if not UUID_RE.match(name):
        raise ReportError(f"{name}: no such file or folder (nor a Rally task UUID)")
    found = find_in_runs(name, runs_dir)
    return found if found is not None else export_from_rally(name, scratch)
