"""Tests for rally_keystone_perf.deploy.orphans (real child processes)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rally_keystone_perf.deploy import launcher, orphans, services
from rally_keystone_perf.layout.rundir import RunDir


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture
def server() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    yield proc
    proc.kill()
    proc.wait()


def _run(root: Path, name: str, driver: int | None, pid: int) -> RunDir:
    run = RunDir(root / name)
    run.create()
    run.write_state(status="running", driver_pid=driver)
    services.record(run, "uwsgi", pid)
    return run


def test_a_run_whose_driver_died_is_orphaned(
    tmp_path: Path, server: subprocess.Popen[bytes]
) -> None:
    dead = _dead_pid()
    orphan = _run(tmp_path, "a", dead, server.pid)
    _run(tmp_path, "b", None, server.pid)  # up: detached on purpose
    _run(tmp_path, "c", 1, server.pid)  # its driver runs
    nested = _run(tmp_path / "matrix-quick" / "runs", "d", dead, server.pid)
    assert orphans.orphaned_by(orphan.state()) == dead
    assert orphans.describe(orphan.state()) == (
        f"orphaned: started by pid {dead}, which is gone; stop it with down"
    )
    assert orphans.find(tmp_path) == [orphan, nested]


def test_a_dead_driver_with_nothing_left_is_not_orphaned(tmp_path: Path) -> None:
    run = _run(tmp_path, "a", _dead_pid(), _dead_pid())
    assert orphans.orphaned_by(run.state()) is None
    assert orphans.describe(run.state()) is None


def test_a_dead_run_whose_cgroups_or_namespaces_remain_is_orphaned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its driver and every server killed at once (the OOM killer): what they
    ran in is left, and down must remove it."""
    netns = tmp_path / "netns"
    netns.mkdir()
    (netns / "kspab12n1").write_text("")  # ip netns keeps a file per namespace
    monkeypatch.setattr(orphans, "NETNS_DIR", netns)
    group = tmp_path / "cgroup" / "kspab12-node1"
    group.mkdir(parents=True)
    run = _run(tmp_path, "a", _dead_pid(), _dead_pid())
    network = {"namespaces": ["kspab12n1", "kspab12n2"], "bridge": "kspab12br"}
    run.write_state(
        cluster={"network": network},
        cpu_quota={"groups": {"node1": str(group), "db": str(tmp_path / "gone")}},
    )
    assert orphans.leftovers(run.state()) == [
        "namespace kspab12n1",
        f"cgroup {group}",
    ]
    assert orphans.find(tmp_path) == [run]
    group.rmdir()
    (netns / "kspab12n1").unlink()
    assert orphans.find(tmp_path) == []


def test_the_worker_hosts_namespaces_left_are_leftovers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    netns = tmp_path / "netns"
    netns.mkdir()
    (netns / "kspcd34c2").write_text("")
    monkeypatch.setattr(orphans, "NETNS_DIR", netns)
    run = _run(tmp_path, "a", _dead_pid(), _dead_pid())
    run.write_state(
        client_network={"namespaces": ["kspcd34c1", "kspcd34c2"], "bridge": "x"}
    )
    assert orphans.leftovers(run.state()) == ["namespace kspcd34c2"]


def test_stop_all_stops_and_says_what(
    tmp_path: Path, server: subprocess.Popen[bytes]
) -> None:
    run = _run(tmp_path, "a", _dead_pid(), server.pid)
    said: list[str] = []
    assert orphans.stop_all(tmp_path, launcher.stop, said.append) == 1
    assert server.wait(timeout=20) is not None
    assert said and f"uwsgi (pid {server.pid})" in said[0]
    assert str(run.root) in said[0]
    assert run.read_state()["status"] == "stopped"
    assert orphans.find(tmp_path) == []


def test_claim_and_detach(run: RunDir) -> None:
    orphans.claim(run)
    assert run.read_state()["driver_pid"] > 1
    orphans.detach(run)
    assert run.read_state()["driver_pid"] is None
