"""``rounds.json``: a study's or the releases' record of its rounds.

``study SEED`` in rounds and ``releases``
(:mod:`rally_keystone_perf.run.study_rounds`) write it as each config's
task ends; the pages read it back. It names each config's options, task
files and run folders, and each :class:`StudyRound`'s order, reports and
exit codes; its ``status`` is one of :data:`RUNNING`, :data:`DONE`,
:data:`INTERRUPTED` or :data:`FAILED`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rally_keystone_perf.layout import state_files

STATE_FILE = "rounds.json"
STATE_VERSION = 1
RUNNING, DONE = state_files.RUNNING, state_files.DONE
INTERRUPTED, FAILED = state_files.INTERRUPTED, state_files.FAILED


@dataclass
class StudyRound:
    """One round: the configs' order, their reports and exit codes."""

    round_no: int
    order: list[str]
    reports: dict[str, str] = field(default_factory=dict)  # config -> report
    exit_codes: dict[str, int] = field(default_factory=dict)
    started: float | None = None
    finished: float | None = None

    @property
    def complete(self) -> bool:
        return set(self.reports) >= set(self.order)


@dataclass
class RoundsState:
    """``rounds.json``: what each config runs, and every round so far."""

    folder: Path
    configs: dict[str, dict[str, Any]]  # label -> {"options", "tasks", "runs"}
    scale: float  # each round's share of a task file's iterations or seconds
    rounds_planned: int
    status: str = RUNNING
    rounds: list[StudyRound] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return self.folder / STATE_FILE

    def save(self) -> None:
        """Write ``rounds.json`` atomically."""
        state_files.write_state(self.path, self, STATE_VERSION)

    @classmethod
    def load(cls, folder: Path) -> RoundsState:
        """The rounds recorded in ``folder``, their paths found again if it
        moved (:func:`.state_files.relocated`); ValueError when there are
        none."""
        document = state_files.read_state(folder / STATE_FILE, "a study's rounds")
        try:
            found = [StudyRound(**r) for r in document.pop("rounds", [])]
            state = cls(folder=folder, rounds=found, **document)
        except TypeError as exc:
            raise ValueError(
                f"{folder / STATE_FILE}: not a study's rounds ({exc})"
            ) from None
        for config in state.configs.values():
            if "runs" in config:
                config["runs"] = [
                    state_files.relocated(folder, run) for run in config["runs"]
                ]
        for entry in found:
            entry.reports = {
                k: state_files.relocated(folder, v) for k, v in entry.reports.items()
            }
        return state

    def complete_rounds(self) -> list[StudyRound]:
        return [r for r in self.rounds if r.complete]

    def reports(self) -> list[dict[str, Path]]:
        """Each complete round's reports by config."""
        return [
            {label: Path(path) for label, path in r.reports.items()}
            for r in self.complete_rounds()
        ]
