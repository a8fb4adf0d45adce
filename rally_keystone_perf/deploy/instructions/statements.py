"""The SQL statements Keystone sends, counted by kind, in a replay run natively.

A replay with ``--statements FILE`` (:mod:`.replay`) runs outside valgrind,
with this counter in place of callgrind's markers: the same warm-up, the
same segments, collection on only inside Keystone's application. It listens
to every SQLAlchemy engine of the process (class-level listeners, in place
before Keystone makes its engine) and counts:

- each statement sent to a cursor (``before_cursor_execute``: an
  ``executemany`` is one), by its first word (:func:`kind`);
- each transaction's end, ``commit`` and ``rollback``, which SQLAlchemy
  sends through the driver rather than as a statement.

Reads (``SELECT``) and writes (``INSERT``, ``UPDATE``, ``DELETE``) of
Keystone's tables are kept apart from transaction control (oslo.db's
explicit ``BEGIN`` on SQLite, the suite's ``BEGIN IMMEDIATE``:
:mod:`rally_keystone_perf.deploy.keystone.sqlite_writers`) and ``PRAGMA``
(the same module's busy timeout), which another database sends otherwise or
not at all: "one more read per validation" then means one more query on
MariaDB too. A pool's reset of a connection it takes back is not counted.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from rally_keystone_perf.layout.counts import (
    OTHER,
    PRAGMA,
    READ,
    TRANSACTION,
    WRITE,
)
from rally_keystone_perf.layout.counts import STATEMENT_KINDS as KINDS

_FIRST_WORDS = {
    "SELECT": READ,
    "INSERT": WRITE,
    "UPDATE": WRITE,
    "DELETE": WRITE,
    "REPLACE": WRITE,
    "BEGIN": TRANSACTION,
    "COMMIT": TRANSACTION,
    "ROLLBACK": TRANSACTION,
    "SAVEPOINT": TRANSACTION,
    "RELEASE": TRANSACTION,
    "PRAGMA": PRAGMA,
}


def kind(statement: str) -> str:
    """A statement's kind (one of :data:`KINDS`) by its first word."""
    words = statement.split(None, 1)
    return _FIRST_WORDS.get(words[0].upper(), OTHER) if words else OTHER


class StatementCounter:
    """Callgrind's markers' calls (start, toggle, zero, dump), counting SQL
    statements instead: what each dumped segment sent, by kind."""

    def __init__(self) -> None:
        self.collecting = False
        self.current: collections.Counter[str] = collections.Counter()
        self.segments: dict[str, dict[str, int]] = {}

    def _listeners(self) -> list[tuple[str, Any]]:
        return [
            ("before_cursor_execute", self._statement),
            ("commit", self._ended),
            ("rollback", self._ended),
        ]

    def install(self) -> None:
        """Listen to every engine of this process, made now or later."""
        for name, listener in self._listeners():
            event.listen(Engine, name, listener)

    def uninstall(self) -> None:
        """Stop listening."""
        for name, listener in self._listeners():
            event.remove(Engine, name, listener)

    def _statement(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if self.collecting:
            self.current[kind(statement)] += 1

    def _ended(self, conn: Any) -> None:
        if self.collecting:
            self.current[TRANSACTION] += 1

    def start(self) -> None:
        """Nothing to switch on: the counts run while collecting."""

    def toggle(self) -> None:
        """Collect from now on if not collecting, else stop."""
        self.collecting = not self.collecting

    def zero(self) -> None:
        """Forget what was counted since the last dump."""
        self.current = collections.Counter()

    def dump(self, label: str) -> None:
        """Keep what was counted since the last zero, under ``label``."""
        self.segments[label] = {k: self.current[k] for k in KINDS}

    def write(self, path: Path) -> None:
        """Write each segment's counts as JSON."""
        path.write_text(json.dumps({"segments": self.segments}, indent=2) + "\n")


def per_iteration(path: Path, iterations: int) -> dict[str, float]:
    """Statements of each kind per iteration, from a replay's ``FILE``: the
    median segment's over its ``iterations``.

    :raises ValueError: the file holds no segment.
    """
    segments = list(json.loads(path.read_text())["segments"].values())
    if not segments:
        raise ValueError(f"{path}: no segment counted")
    middle = sorted(segments, key=lambda s: sum(s.get(k, 0) for k in KINDS))
    chosen = middle[(len(middle) - 1) // 2]
    return {k: chosen.get(k, 0) / iterations for k in KINDS}
