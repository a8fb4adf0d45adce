"""``ab.json``: an A/B folder's record of what it compared and how it ran.

``rally-keystone-perf ab`` (:mod:`rally_keystone_perf.run.ab`) writes it as
the rounds end, the report (:mod:`rally_keystone_perf.report.readers.ab_folder`)
reads it back. Its sides are :data:`SIDES`; its ``status`` one of
:data:`RUNNING`, :data:`DONE`, :data:`INTERRUPTED` or :data:`FAILED`; each
:class:`Round` names its order (``"ab"`` or ``"ba"``) and each side's report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rally_keystone_perf.layout import state_files

SIDES = ("a", "b")
STATE_FILE = "ab.json"
STATE_VERSION = 1
RUNNING, DONE = state_files.RUNNING, state_files.DONE
INTERRUPTED, FAILED = state_files.INTERRUPTED, state_files.FAILED


@dataclass
class Round:
    """One round: its order, each side's report and when it ran."""

    round_no: int
    order: str
    reports: dict[str, str] = field(default_factory=dict)  # side -> report path
    started: float | None = None
    finished: float | None = None
    exit_codes: dict[str, int] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return set(self.reports) == set(SIDES)


@dataclass
class AbState:
    """``ab.json``: what an A/B compared, how it ran, where its reports are."""

    folder: Path
    task: str
    sides: dict[str, dict[str, Any]]  # side -> {"options": ..., "run": path}
    rounds_planned: int
    status: str = RUNNING
    rounds: list[Round] = field(default_factory=list)
    started: float | None = None
    finished: float | None = None

    @property
    def path(self) -> Path:
        return self.folder / STATE_FILE

    def save(self) -> None:
        """Write ``ab.json`` atomically."""
        state_files.write_state(self.path, self, STATE_VERSION)

    @classmethod
    def load(cls, folder: Path) -> AbState:
        """The A/B recorded in ``folder``, its paths found again if it moved
        (:func:`.state_files.relocated`); ValueError when there is none."""
        document = state_files.read_state(folder / STATE_FILE, "an A/B folder")
        try:
            rounds = [Round(**r) for r in document.pop("rounds", [])]
            state = cls(folder=folder, rounds=rounds, **document)
        except TypeError as exc:
            raise ValueError(
                f"{folder / STATE_FILE}: not an A/B folder ({exc})"
            ) from None
        for side in state.sides.values():
            if side.get("run"):
                side["run"] = state_files.relocated(folder, side["run"])
        for entry in rounds:
            entry.reports = {
                k: state_files.relocated(folder, v) for k, v in entry.reports.items()
            }
        return state

    def complete_rounds(self) -> list[Round]:
        return [r for r in self.rounds if r.complete]
