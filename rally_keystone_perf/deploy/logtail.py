"""The tails of server logs, for errors that must show why a server failed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rally_keystone_perf.layout.rundir import RunDir

LOG_TAIL_LINES = 25


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log file (or a note that it is missing)."""
    return _tail(path, lines, "")


def named_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of ``path`` under a ``--- path`` header."""
    return _tail(path, lines, f"--- {path}\n")


def _tail(path: Path, lines: int, header: str) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return f"({path} was not written)"
    return header + "\n".join(text[-lines:])


def log_tails(run: RunDir, names: Sequence[str]) -> str:
    """The tails of the run's non-empty logs among ``names``."""
    parts = []
    for name in names:
        path = run.logs / name
        if path.exists() and path.stat().st_size:
            parts.append(named_tail(path))
    return "\n".join(parts) or "(no log was written)"
