"""A state file (``ab.json``, ``rounds.json``, ``matrix.json``...) written
atomically: a reader, or the next command after a crash, finds the old
document or the new one, never half of one. Read back with
:func:`read_state`; the paths it recorded follow a folder that was moved or
copied (:func:`relocated`)."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self

# a state's status: its command runs, ended, was stopped (Ctrl-C, SIGTERM:
# the complete rounds kept) or failed
RUNNING, DONE, INTERRUPTED, FAILED = "running", "done", "interrupted", "failed"


def write_json(path: Path, document: Any) -> None:
    """``document`` as indented JSON with sorted keys, in ``path`` (its
    folder made first), through a scratch file renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(".tmp")
    scratch.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    os.replace(scratch, path)


def write_state(path: Path, state: Any, version: int) -> None:
    """A state dataclass (``ab.json``'s, ``rounds.json``'s) as its file: its
    fields but the ``folder`` it lives in, with its format's ``version``."""
    document = dataclasses.asdict(state)
    document.pop("folder", None)
    document["version"] = version
    write_json(path, document)


def read_state(path: Path, what: str) -> dict[str, Any]:
    """The document of a state file written by :func:`write_state`, its
    ``version`` dropped.

    :raises ValueError: no such file, or not a JSON object: ``<path>: not
        <what> (<reason>)``.
    """
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not {what} ({exc})") from None
    if not isinstance(document, dict):
        raise ValueError(f"{path}: not {what} (not a JSON object)")
    document.pop("version", None)
    return document


def relocated(folder: Path, recorded: str) -> str:
    """A path a state file recorded, found again after its ``folder`` moved.

    State files record absolute paths (each side's run folder, each round's
    report), all inside the folder. When ``recorded`` no longer exists, the
    longest tail of it that exists under ``folder`` is taken (a folder
    copied to another machine, or into the test data); otherwise
    ``recorded`` as it was, for the reader to name.
    """
    path = Path(recorded)
    if not path.is_absolute() or path.exists():
        return recorded
    parts = path.parts[1:]
    for start in range(len(parts)):
        candidate = folder.joinpath(*parts[start:])
        if candidate.exists():
            return str(candidate)
    return recorded


@dataclass
class Round:
    """One round of a comparison in turns: the sides' order, each side's
    report and exit code, when it ran. Complete when every side of its
    order has a report."""

    round_no: int
    order: Sequence[str]  # "ab" in ab.json, the configs' labels in rounds.json
    reports: dict[str, str] = field(default_factory=dict)  # side -> report path
    exit_codes: dict[str, int] = field(default_factory=dict)
    started: float | None = None
    finished: float | None = None

    @property
    def complete(self) -> bool:
        return set(self.reports) >= set(self.order)


class RoundsFile:
    """What ``ab.json`` and ``rounds.json`` share: where the file is, how
    it is saved and read back (its paths found again if the folder moved),
    which rounds are complete. A subclass is a dataclass with ``folder``
    and ``rounds`` among its fields, and names its :data:`FILE`,
    :data:`VERSION` and :data:`WHAT` (for errors)."""

    FILE: ClassVar[str]
    VERSION: ClassVar[int]
    WHAT: ClassVar[str]
    folder: Path
    rounds: list[Round]

    @property
    def path(self) -> Path:
        return self.folder / self.FILE

    def save(self) -> None:
        """Write the file atomically."""
        write_state(self.path, self, self.VERSION)

    def complete_rounds(self) -> list[Round]:
        return [r for r in self.rounds if r.complete]

    def relocate_runs(self) -> None:
        """The sides' run folders found again (:func:`relocated`) after a
        load: a subclass that records them says where."""

    @classmethod
    def load(cls, folder: Path) -> Self:
        """The state recorded in ``folder``.

        :raises ValueError: none, or not this state's file.
        """
        document = read_state(folder / cls.FILE, cls.WHAT)
        make: Any = cls
        try:
            rounds = [Round(**r) for r in document.pop("rounds", [])]
            state = make(folder=folder, rounds=rounds, **document)
        except TypeError as exc:
            raise ValueError(f"{folder / cls.FILE}: not {cls.WHAT} ({exc})") from None
        for entry in rounds:
            entry.reports = {k: relocated(folder, v) for k, v in entry.reports.items()}
        state.relocate_runs()
        return state
