"""Keystone on SQLite serving concurrent writers: each writer waits its turn.

Loaded into every Keystone process of the suite (:mod:`..wsgi_app`). SQLite
locks the whole database for one writer at a time, where MariaDB would lock
a row. oslo.db begins every SQLite transaction with a plain deferred
``BEGIN`` (its ``begin`` hook cannot tell readers from writers), so a
Keystone write session that reads before it writes (a login's
``last_active_at``, a user's deletion) asks to upgrade its read snapshot to
the write lock mid-transaction. When another process writes meanwhile,
SQLite refuses at once ("database is locked", ``SQLITE_BUSY_SNAPSHOT`` in WAL
mode): the busy timeout does not apply, since waiting could not help a
snapshot that is already stale, and Keystone answers HTTP 500.

What this changes, and only on SQLite: a transaction that oslo.db's
enginefacade opened for a *writer* (Keystone's ``session_for_write()``)
begins with ``BEGIN IMMEDIATE``, which takes the write lock before the
transaction reads anything, so its snapshot cannot go stale. While another
process holds the lock, that ``BEGIN IMMEDIATE`` is refused before anything
was read or written, and is tried again after a pause (1 ms, doubling to 50
ms) for up to :data:`WAIT_SECONDS`, as the busy timeout would have waited;
the pause is ``time.sleep``, so under eventlet only the waiting greenthread
sleeps, not its process. Nothing else waits or is retried:

- readers (token validation, lists: ``session_for_read()``) keep the
  deferred ``BEGIN`` and, in WAL mode, never wait for a writer;
- Keystone's session begins its transaction at its first statement, so work
  done in a write session before it (``create_user`` hashes the password
  with bcrypt before its INSERT) runs in parallel across processes; work a
  session does between its first read and its commit (a password change
  hashes after reading the user) holds the lock, as it would hold a row
  lock on MariaDB;
- an HTTP request is never retried.

Keystone's code is unchanged: this is one SQLAlchemy ``begin`` listener on
the engines of the process. The writer is told from oslo.db's transaction
context of Keystone's thread-local context (``keystone.common.sql.core``),
private names of Keystone 30 and oslo.db 18 that the unit tests pin.

``KEYSTONE_PERF_SQLITE_BEGIN=deferred`` in Keystone's environment leaves
oslo.db's stock ``BEGIN`` for writers too: what ``benchmarks.sqlite_writers``
measures the change against.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from keystone.common.sql import core as sql_core
from oslo_db.sqlalchemy import enginefacade
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError

WAIT_SECONDS = 30.0  # as the connection's busy timeout (?timeout=30)
FIRST_PAUSE = 0.001
LONGEST_PAUSE = 0.05
LOCKED = "database is locked"
MODE_ENV = "KEYSTONE_PERF_SQLITE_BEGIN"  # immediate (the default) or deferred
MODES = ("immediate", "deferred")
IN_TRANSACTION = "in_transaction"  # oslo.db's mark of a BEGIN already sent


def writing() -> bool:
    """Whether this thread's current oslo.db transaction is a writer's."""
    contexts = getattr(sql_core._get_context(), "_enginefacade_context", None)
    current = getattr(contexts, "current", None)
    return getattr(current, "mode", None) is enginefacade._WRITER


def begin_immediate(
    connection: Connection,
    wait: float = WAIT_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """``BEGIN IMMEDIATE``, tried again while another connection writes.

    SQLite's own busy wait is switched off around it (it would block an
    eventlet process in C); the pauses are ``sleep``'s.

    :returns: the number of tries.
    :raises OperationalError: still locked after ``wait`` seconds, or any
        other error of the statement.
    """
    deadline = clock() + wait
    pause = FIRST_PAUSE
    tries = 0
    busy_ms = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
    connection.exec_driver_sql("PRAGMA busy_timeout = 0")
    try:
        while True:
            tries += 1
            try:
                connection.exec_driver_sql("BEGIN IMMEDIATE")
                return tries
            except OperationalError as exc:
                if LOCKED not in str(exc.orig) or clock() + pause > deadline:
                    raise
            sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)
    finally:
        connection.exec_driver_sql(f"PRAGMA busy_timeout = {int(busy_ms or 0)}")


def on_begin(connection: Connection) -> None:
    """SQLAlchemy's ``begin`` event: a writer's SQLite transaction begins
    IMMEDIATE; oslo.db's own listener then sends no second ``BEGIN``."""
    if connection.dialect.name != "sqlite" or IN_TRANSACTION in connection.info:
        return
    if not writing():
        return
    begin_immediate(connection)
    connection.info[IN_TRANSACTION] = True


def install(environ: dict[str, str] | None = None) -> bool:
    """Listen to every engine's ``begin`` (class-level listeners run before
    oslo.db's per-engine one); False when the environment says deferred.

    :raises ValueError: an unknown :data:`MODE_ENV` value.
    """
    mode = (os.environ if environ is None else environ).get(MODE_ENV, MODES[0])
    if mode not in MODES:
        raise ValueError(f"{MODE_ENV}={mode!r}: expected one of {', '.join(MODES)}")
    if mode == "deferred":
        return False
    if not event.contains(Engine, "begin", on_begin):
        event.listen(Engine, "begin", on_begin)
    return True
