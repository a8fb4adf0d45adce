"""``ab.json``: an A/B folder's record of what it compared and how it ran.

``rally-keystone-perf ab`` (:mod:`rally_keystone_perf.run.ab`) writes it as
the rounds end, the report (:mod:`rally_keystone_perf.report.readers.ab_folder`)
reads it back. Its sides are :data:`SIDES`; its ``status`` one of
:mod:`.state_files`' (running, done, interrupted, failed); each
:class:`Round` names its order (``"ab"`` or ``"ba"``) and each side's report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rally_keystone_perf.layout import state_files
from rally_keystone_perf.layout.state_files import Round

SIDES = ("a", "b")


@dataclass
class AbState(state_files.RoundsFile):
    """``ab.json``: what an A/B compared, how it ran, where its reports are."""

    FILE: ClassVar[str] = "ab.json"
    VERSION: ClassVar[int] = 1
    WHAT: ClassVar[str] = "an A/B folder"

    folder: Path
    task: str
    sides: dict[str, dict[str, Any]]  # side -> {"options": ..., "run": path}
    rounds_planned: int
    status: str = state_files.RUNNING
    rounds: list[Round] = field(default_factory=list)
    started: float | None = None
    finished: float | None = None

    def relocate_runs(self) -> None:
        for side in self.sides.values():
            if side.get("run"):
                side["run"] = state_files.relocated(self.folder, side["run"])
