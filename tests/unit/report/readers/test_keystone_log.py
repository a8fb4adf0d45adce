"""Tests for rally_keystone_perf.report.readers.keystone_log: the requests a
locked SQLite database failed, each counted once, as Keystone logged them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rally_keystone_perf.report.readers import keystone_log
from rally_keystone_perf.report.readers.rally_json import ReportError

PREFIX = "ERROR keystone.wsgi.guard"
CONTEXT = "[None req-86acc3e8 9c3f 1d99 - - default default]"


def locked_record(epoch: float, pid: int = 10802) -> str:
    """One failed request as keystone.log has it (run 20261124-235701-uwsgi):
    the context line, then traceback lines without the context."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))
    head = f"{stamp}.{round(epoch % 1 * 1000):03d} {pid} {PREFIX}"
    return "\n".join(
        [
            f"{head} {CONTEXT} unhandled error in Keystone, answered with HTTP "
            "500: sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) "
            "database is locked",
            "[SQL: DELETE FROM project WHERE project.id = ?]",
            f"{head} Traceback (most recent call last):",
            f"{head} sqlite3.OperationalError: database is locked",
            f"{head} sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) "
            "database is locked",
        ]
    )


def test_each_refused_request_counts_once(tmp_path: Path) -> None:
    log = tmp_path / "keystone.log"
    other = f"2026-11-24 23:57:32.748 10803 WARNING keystone.common {CONTEXT} x"
    log.write_text("\n".join([other, locked_record(2000.5), locked_record(5000.25)]))
    assert keystone_log.locked_times(log) == [2000.5, 5000.25]


def test_a_log_without_a_locked_database(tmp_path: Path) -> None:
    log = tmp_path / "keystone.log"
    log.write_text(f"2026-11-24 23:57:33.165 10802 {PREFIX} {CONTEXT} other error\n")
    assert keystone_log.locked_times(log) == []


def test_an_unreadable_log_is_a_report_error(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="keystone.log"):
        keystone_log.locked_times(tmp_path / "keystone.log")
