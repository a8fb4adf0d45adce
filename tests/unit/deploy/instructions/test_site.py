"""What a count's in-process Keystone runs with, and what it refuses."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rally_keystone_perf.deploy.instructions import site
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.layout.rundir import RunDir


def test_one_process_on_sqlite_with_bcrypts_least_rounds() -> None:
    counted = site.count_options(
        LaunchOptions(db="mysql", nodes=3, trace="slowest:5", port=5000)
    )
    assert (counted.db, counted.nodes, counted.trace, counted.port) == (
        "sqlite",
        1,
        None,
        None,
    )
    assert counted.password_hash_rounds == site.DEFAULT_HASH_ROUNDS
    assert (
        site.count_options(LaunchOptions(password_hash_rounds=6)).password_hash_rounds
        == 6
    )


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (LaunchOptions(cache="memcached"), "memcached's work is outside it"),
        (LaunchOptions(identity="ldap"), "ldap identity backend"),
        (LaunchOptions(wsgi="stock"), "--wsgi stock is not counted"),
    ],
)
def test_work_outside_the_process_is_refused(
    options: LaunchOptions, reason: str
) -> None:
    with pytest.raises(LaunchError, match=reason):
        site.count_options(options)


def test_each_replay_starts_from_the_prepared_database(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "site")
    run.create()
    database = run.db / site.DATABASE
    conn = sqlite3.connect(database)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    site.keep_prepared(run)
    conn.execute("INSERT INTO t VALUES (1)")  # written after: not in the copies
    conn.commit()
    conn.close()
    config = site.replay_config(run, "replay-0-1")
    copy = run.db / "replay-0-1.sqlite"
    assert f"connection = sqlite:///{copy}?timeout=30" in config.read_text()
    with sqlite3.connect(copy) as again:
        assert again.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)
