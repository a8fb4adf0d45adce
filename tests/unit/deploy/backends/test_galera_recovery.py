"""Tests for deploy.cluster.galera_recovery (small real processes)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rally_keystone_perf.deploy import services
from rally_keystone_perf.deploy.backends import galera_recovery
from rally_keystone_perf.layout.rundir import RunDir

UUID = "12a3f471-e738-11f1-bc89-a20224bb877e"


@pytest.fixture
def run(tmp_path: Path) -> RunDir:
    folder = RunDir(tmp_path / "r")
    folder.create()
    return folder


def _recorded_member(run: RunDir, name: str, position: str | None) -> None:
    """A stopped member whose command, run with --wsrep-recover, logs
    ``position`` to its --log-error file as mariadbd does."""
    line = "" if position is None else f"WSREP: Recovered position: {position}"
    code = (
        "import sys\n"
        "log = [a for a in sys.argv if a.startswith('--log-error=')][-1][12:]\n"
        "assert sys.argv[-1] == '--wsrep-recover'\n"
        f"open(log, 'w').write('starting\\n{line}\\n')\n"
    )
    argv = [sys.executable, "-c", code, "--log-error=/nowhere.log"]
    spec = {"argv": argv, "env": {}, "umask": 0o022, "user": None}
    services.record(run, name, 2**22 + 1, None, spec)  # not running
    (run.db / name).mkdir()
    (run.db / name / "grastate.dat").write_text(
        f"uuid: {UUID}\nseqno: -1\nsafe_to_bootstrap: 0\n"
    )


def test_a_member_rejoins_at_its_recovered_position(run: RunDir) -> None:
    _recorded_member(run, "galera1", f"{UUID}:125")
    other = services.start(run, "galera2", ["sleep", "30"])
    try:
        extra = galera_recovery.restart_args(run, "galera1")
    finally:
        services.stop_pid(other.pid, 5)
    assert extra == [f"--wsrep-start-position={UUID}:125"]
    assert "safe_to_bootstrap: 0" in (run.db / "galera1" / "grastate.dat").read_text()
    assert (run.logs / "galera1-recover.log").exists()


def test_the_last_member_bootstraps_without_a_position(run: RunDir) -> None:
    _recorded_member(run, "galera1", None)
    assert galera_recovery.restart_args(run, "galera1") == ["--wsrep-new-cluster"]
    assert "safe_to_bootstrap: 1" in (run.db / "galera1" / "grastate.dat").read_text()


def test_other_services_get_nothing(run: RunDir) -> None:
    assert galera_recovery.restart_args(run, "node1-uwsgi") == []
    assert galera_recovery.recover_position(run, "galera9") is None


def test_readiness_fails_once_the_member_exits(run: RunDir) -> None:
    proc = services.start(run, "galera1", [sys.executable, "-c", "pass"])
    proc.wait()
    cluster = {"galera": [{"name": "galera1", "address": "127.0.0.21",
                           "ports": {"mysql": 1}}]}  # fmt: skip
    run.write_state(cluster=cluster, sockets_dir=str(run.root))
    ready, words = galera_recovery.readiness(run.state(), "galera1")
    assert words == "Synced on 127.0.0.21:1"
    with pytest.raises(services.ServiceError, match="galera1 exited before"):
        ready()
