"""A state file (``ab.json``, ``rounds.json``, ``matrix.json``...) written
atomically: a reader, or the next command after a crash, finds the old
document or the new one, never half of one."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any


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
