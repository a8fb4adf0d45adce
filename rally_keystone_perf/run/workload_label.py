"""The workload Rally starts, named from its multi-line log message.

Rally's engine logs ``Running workload:`` then, on lines of their own,
``position = N`` and ``config = {...}``: the workload as a one-workload
task, in JSON indented by 3. :class:`WorkloadLabel` collects those lines
and gives ``KeystonePerf.create_token (constant, times 100, concurrency 4)``
for the progress line (Rally's first line alone names nothing).
"""

from __future__ import annotations

import json
from typing import Any

START = "Running workload"
MAX_LINES = 2000  # a config longer than this is not waited for


def label(config: dict[str, Any]) -> str | None:
    """``scenario (runner, times T, concurrency C)`` of a one-workload task."""
    try:
        (subtask,) = config["subtasks"]
        (name,) = subtask["scenario"]
        ((runner, settings),) = subtask["runner"].items()
    except (KeyError, TypeError, ValueError):
        return None
    figures = [runner]
    for key in ("times", "concurrency", "rps", "rate", "duration"):
        if isinstance(settings, dict) and key in settings:
            figures.append(f"{key} {settings[key]}")
    return f"{name} ({', '.join(figures)})"


class WorkloadLabel:
    """Collects the lines after ``Running workload:`` until the config ends."""

    def __init__(self) -> None:
        self._lines: list[str] | None = None
        self._seen = 0

    @property
    def collecting(self) -> bool:
        return self._lines is not None

    def start(self) -> None:
        """The ``Running workload:`` line was seen."""
        self._lines, self._seen = [], 0

    def stop(self) -> None:
        """Give up (another message came first)."""
        self._lines = None

    def feed(self, line: str) -> str | None:
        """Take one line while collecting; the label once the config closed
        (``""`` when it cannot be read: the caller then names nothing)."""
        if self._lines is None:
            return None
        self._seen += 1
        text = line.rstrip("\n")
        stripped = text.strip()
        if stripped.startswith("config = "):
            self._lines.append(stripped[len("config = ") :])
        elif self._lines:
            self._lines.append(text)
        if text == "}" or self._seen > MAX_LINES:
            lines, self._lines = self._lines, None
            try:
                return label(json.loads("\n".join(lines))) or ""
            except ValueError:
                return ""
        return None
