"""SQL statements counted by kind, only while collecting, per segment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy

from rally_keystone_perf.deploy.instructions import statements


@pytest.mark.parametrize(
    ("statement", "kind"),
    [
        ("SELECT project.id FROM project", "read"),
        ("  select 1", "read"),
        ("INSERT INTO revocation_event ...", "write"),
        ("UPDATE local_user SET failed_auth_count=?", "write"),
        ("DELETE FROM user", "write"),
        ("BEGIN", "transaction"),
        ("BEGIN IMMEDIATE", "transaction"),
        ("PRAGMA busy_timeout = 0", "pragma"),
        ("CREATE TABLE x (y INT)", "other"),
        ("", "other"),
    ],
)
def test_a_statement_is_known_by_its_first_word(statement: str, kind: str) -> None:
    assert statements.kind(statement) == kind


@pytest.fixture
def counter() -> Iterator[statements.StatementCounter]:
    found = statements.StatementCounter()
    found.install()
    yield found
    found.uninstall()


def test_only_what_runs_while_collecting_is_counted(
    counter: statements.StatementCounter, tmp_path: Path
) -> None:
    engine = sqlalchemy.create_engine("sqlite://")  # made after the listeners
    with engine.connect() as conn:
        conn.exec_driver_sql("CREATE TABLE t (x INT)")  # not collecting
        counter.toggle()
        conn.exec_driver_sql("INSERT INTO t VALUES (1)")
        conn.exec_driver_sql("SELECT x FROM t")
        conn.exec_driver_sql("PRAGMA user_version")
        conn.commit()
        counter.toggle()
        conn.exec_driver_sql("SELECT x FROM t")  # not collecting
    counter.dump("segment-1")
    counter.zero()
    counter.dump("segment-2")
    assert counter.segments["segment-1"] == {
        **{"read": 1, "write": 1, "transaction": 1},
        **{"pragma": 1, "other": 0},
    }
    assert sum(counter.segments["segment-2"].values()) == 0


def test_per_iteration_is_the_median_segment(tmp_path: Path) -> None:
    counter = statements.StatementCounter()
    for label, reads in (("segment-1", 12), ("segment-2", 13), ("segment-3", 12)):
        counter.zero()
        counter.current.update(read=reads, transaction=8)
        counter.dump(label)
    path = tmp_path / "statements.json"
    counter.write(path)
    found = statements.per_iteration(path, 4)
    assert found["read"] == 3.0 and found["transaction"] == 2.0
    path.write_text('{"segments": {}}')
    with pytest.raises(ValueError, match="no segment"):
        statements.per_iteration(path, 4)
