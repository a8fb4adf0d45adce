"""Tests for rally_keystone_perf.deploy.backends.postgresql (nothing is started)."""

from __future__ import annotations

import os
import pwd
import subprocess
from pathlib import Path

import pytest

from rally_keystone_perf.deploy.backends import postgresql


def test_as_root_the_server_runs_as_postgres(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgresql.os, "geteuid", lambda: 0)
    assert postgresql.server_user() == "postgres"
    argv = postgresql.initdb_argv(Path("/bin/initdb"), Path("/run/db/postgresql"))
    assert "--username=postgres" in argv  # its superuser logs in by peer


def test_initdb_authenticates_as_debian_does() -> None:
    argv = postgresql.initdb_argv(Path("/bin/initdb"), Path("/d"))
    assert argv[:2] == ["/bin/initdb", "--pgdata=/d"]
    assert {"--auth-local=peer", "--auth-host=scram-sha-256"} <= set(argv)


def test_postgres_listens_on_loopback_and_its_own_socket() -> None:
    argv = postgresql.postgres_argv(
        Path("/bin/postgres"), Path("/d"), Path("/s"), "127.0.0.1", 5433
    )
    assert argv == [
        "/bin/postgres",
        "-D",
        "/d",
        "-k",
        "/s",
        "-h",
        "127.0.0.1",
        "-p",
        "5433",
        "-c",
        f"max_connections={postgresql.MAX_CONNECTIONS}",
    ]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root changes its user")
def test_drop_to_a_user_after_joining_as_root() -> None:
    """setpriv becomes the user, its group only; run after the cgroup join."""
    nobody = pwd.getpwnam("nobody")
    argv = postgresql.drop_to("nobody")
    assert argv == [
        "setpriv",
        f"--reuid={nobody.pw_uid}",
        f"--regid={nobody.pw_gid}",
        "--clear-groups",
        "--",
    ]
    result = subprocess.run([*argv, "id"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"uid={nobody.pw_uid}(nobody)")
    assert "groups=" + str(nobody.pw_gid) in result.stdout


def test_a_cluster_s_nodes_may_log_in_to_keystone_s_database_only(
    tmp_path: Path,
) -> None:
    pg_hba = tmp_path / "pg_hba.conf"
    pg_hba.write_text("host all all 127.0.0.1/32 scram-sha-256\n")
    postgresql.allow_clients(pg_hba, ["198.18.0.1", "198.18.0.11", "198.18.0.1"])
    lines = pg_hba.read_text().splitlines()
    assert lines[0] == "host all all 127.0.0.1/32 scram-sha-256"  # initdb's kept
    assert lines[2:] == [
        "host keystone keystone 198.18.0.1/32 scram-sha-256",
        "host keystone keystone 198.18.0.11/32 scram-sha-256",
    ]


def test_no_clients_leave_initdb_s_pg_hba_as_it_is(tmp_path: Path) -> None:
    pg_hba = tmp_path / "pg_hba.conf"
    pg_hba.write_text("stock\n")
    postgresql.allow_clients(pg_hba, [])
    assert pg_hba.read_text() == "stock\n"
