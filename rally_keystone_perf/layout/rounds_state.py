"""``rounds.json``: a study's or the releases' record of its rounds.

``study SEED`` in rounds and ``releases``
(:mod:`rally_keystone_perf.run.study_rounds`) write it as each config's
task ends; the pages read it back. It names each config's options, task
files and run folders, and each :class:`.state_files.Round`'s order, reports and
exit codes; its ``status`` is one of :mod:`.state_files`' (running,
done, interrupted, failed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rally_keystone_perf.layout import state_files
from rally_keystone_perf.layout.state_files import Round


@dataclass
class RoundsState(state_files.RoundsFile):
    """``rounds.json``: what each config runs, and every round so far."""

    FILE: ClassVar[str] = "rounds.json"
    VERSION: ClassVar[int] = 1
    WHAT: ClassVar[str] = "a study's rounds"

    folder: Path
    configs: dict[str, dict[str, Any]]  # label -> {"options", "tasks", "runs"}
    scale: float  # each round's share of a task file's iterations or seconds
    rounds_planned: int
    status: str = state_files.RUNNING
    rounds: list[Round] = field(default_factory=list)

    def relocate_runs(self) -> None:
        for config in self.configs.values():
            if "runs" in config:
                config["runs"] = [
                    state_files.relocated(self.folder, run) for run in config["runs"]
                ]

    def reports(self) -> list[dict[str, Path]]:
        """Each complete round's reports by config."""
        return [
            {label: Path(path) for label, path in r.reports.items()}
            for r in self.complete_rounds()
        ]
