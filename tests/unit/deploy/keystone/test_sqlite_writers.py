"""Tests for rally_keystone_perf.deploy.keystone.sqlite_writers, on real SQLite
files in WAL mode, through oslo.db's enginefacade and Keystone's context as
Keystone's own sessions use them."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from keystone.common.sql import core as sql_core
from oslo_db.sqlalchemy import enginefacade
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from rally_keystone_perf.deploy.keystone import sqlite_writers


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "keystone.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE user (id INTEGER PRIMARY KEY, active INTEGER)")
        conn.execute("INSERT INTO user VALUES (1, 0)")
        conn.commit()
    return path


@pytest.fixture
def immediate() -> Iterator[None]:
    assert sqlite_writers.install({})
    yield
    event.remove(Engine, "begin", sqlite_writers.on_begin)


def _facade(db: Path) -> enginefacade._TransactionContextManager:
    facade = enginefacade.transaction_context()
    facade.configure(connection=f"sqlite:///{db}?timeout=30")
    return facade


def _write_lock_is_taken(db: Path) -> bool:
    """Whether another connection holds SQLite's write lock right now."""
    with contextlib.closing(sqlite3.connect(db, timeout=0)) as other:
        try:
            other.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            assert sqlite_writers.LOCKED in str(exc)
            return True
        other.rollback()
        return False


@contextlib.contextmanager
def _writer_elsewhere(db: Path, seconds: float) -> Iterator[threading.Event]:
    """Another process's writer: holds the write lock, commits after ``seconds``."""
    holding = threading.Event()

    def write() -> None:
        with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("UPDATE user SET active = active + 10")
            holding.set()
            time.sleep(seconds)
            conn.execute("COMMIT")

    thread = threading.Thread(target=write)
    thread.start()
    try:
        assert holding.wait(5)
        yield holding
    finally:
        thread.join()


def _read_then_write(db: Path) -> None:
    """What Keystone's set_last_active_at does: read the user, then update it."""
    with _facade(db).writer.using(sql_core._get_context()) as session:
        session.execute(text("SELECT active FROM user WHERE id = 1")).scalar()
        time.sleep(0.2)  # the other writer commits meanwhile: a stale snapshot
        session.execute(text("UPDATE user SET active = active + 1 WHERE id = 1"))


def test_a_writers_transaction_holds_the_write_lock_from_its_start(
    db: Path, immediate: None
) -> None:
    with _facade(db).writer.using(sql_core._get_context()) as session:
        assert sqlite_writers.writing()
        session.execute(text("SELECT 1")).scalar()  # a read first
        assert _write_lock_is_taken(db)
    assert not _write_lock_is_taken(db)


def test_a_reader_never_takes_the_write_lock(db: Path, immediate: None) -> None:
    with _facade(db).reader.using(sql_core._get_context()) as session:
        assert not sqlite_writers.writing()
        session.execute(text("SELECT active FROM user")).scalar()
        assert not _write_lock_is_taken(db)


def test_a_read_then_write_waits_for_the_other_writer(
    db: Path, immediate: None
) -> None:
    with _writer_elsewhere(db, 0.5):
        _read_then_write(db)  # BEGIN IMMEDIATE waits, then reads fresh data
    with contextlib.closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT active FROM user").fetchone() == (11,)


def test_stock_oslo_db_refuses_the_same_read_then_write(db: Path) -> None:
    """Without the listener (deferred BEGIN) the stale snapshot is refused
    at once: the HTTP 500 of the embedded default."""
    assert not sqlite_writers.install({sqlite_writers.MODE_ENV: "deferred"})
    with _writer_elsewhere(db, 0.1), pytest.raises(OperationalError) as error:
        _read_then_write(db)
    assert sqlite_writers.LOCKED in str(error.value)


def test_begin_immediate_gives_up_after_the_wait_and_keeps_the_timeout(
    db: Path,
) -> None:
    engine = _facade(db).writer.get_engine()
    pauses: list[float] = []
    now = [0.0]

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        now[0] += seconds

    with _writer_elsewhere(db, 0.3), engine.connect() as connection:
        with pytest.raises(OperationalError, match=sqlite_writers.LOCKED):
            sqlite_writers.begin_immediate(
                connection, wait=0.2, sleep=sleep, clock=lambda: now[0]
            )
        timeout = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
    assert timeout == 30000  # ?timeout=30, as it was
    assert pauses[:3] == [0.001, 0.002, 0.004] and max(pauses) == 0.05
    assert sum(pauses) <= 0.2


def test_the_mode_comes_from_the_environment() -> None:
    with pytest.raises(ValueError, match="expected one of immediate, deferred"):
        sqlite_writers.install({sqlite_writers.MODE_ENV: "exclusive"})
    assert not sqlite_writers.install({sqlite_writers.MODE_ENV: "deferred"})
    assert not event.contains(Engine, "begin", sqlite_writers.on_begin)
