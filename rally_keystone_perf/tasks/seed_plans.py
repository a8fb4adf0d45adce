"""How one seed's scenario becomes bundled task files: :class:`ScenarioPlan`.

A plan says, for each level and size, the runner, the contexts and the
words of the task's description. :mod:`.generate` holds the plans of seeds
000, 002 and 003 and writes every file; :mod:`.seed001_tasks` holds seed 001's,
whose levels are not plain concurrency levels (one iteration at a time, and
a rate at a fixed concurrency), hence the level hooks below: by default a
level is ``c<N>`` in the file name and title and "at concurrency N" in the
description.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ScenarioPlan:
    """How one seed's scenario is run at each size."""

    slug: str  # file-name form of the scenario, and its tag
    scenario: str
    seed: str  # "" for a scenario no seed measured
    levels: tuple[int, ...]
    summary: str
    note: str = ""  # a sentence for the description: what the file needs

    def args(self) -> dict[str, Any]:
        """The scenario's arguments (none: its defaults)."""
        return {}

    def runner(self, concurrency: int, size: str) -> dict[str, Any]:
        """Rally's runner section."""
        raise NotImplementedError

    def contexts(self, size: str) -> dict[str, Any]:
        """Rally's contexts section."""
        raise NotImplementedError

    def size_note(self, size: str) -> str:
        """One sentence on what the size means for this scenario."""
        raise NotImplementedError

    def level_name(self, concurrency: int) -> str:
        """The level in the file name: ``c16`` of ``create-token-c16-quick.json``."""
        return f"c{concurrency}"

    def level_title(self, concurrency: int) -> str:
        """The level in the task's title (after the scenario's name)."""
        return f"c{concurrency}"

    def level_text(self, concurrency: int) -> str:
        """The level in the task's description."""
        return f"at concurrency {concurrency}"
