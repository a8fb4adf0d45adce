"""Faults on real (small) processes a test run folder records."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from rally_keystone_perf.deploy import faults, preflight, probes, services
from rally_keystone_perf.layout.rundir import RunDir, RunState


@pytest.fixture
def run(tmp_path: Path) -> Iterator[RunDir]:
    """A single-host uwsgi run whose 'uwsgi' is a small HTTP server."""
    run = RunDir(tmp_path / "run")
    run.create()
    (run.root / "v3").write_text("{}")  # GET /v3 answers 200
    port = preflight.pick_port("127.0.0.1", None)
    run.write_state(mode="uwsgi", url=f"http://127.0.0.1:{port}")
    server = [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)]
    services.start(run, "uwsgi", server)
    probes.wait_until(
        lambda: probes.probe(f"http://127.0.0.1:{port}/v3") == 200,
        services.start(run, "memcached", ["sleep", "60"]),
        "server",
        20,
        lambda: "",
    )
    try:
        yield run
    finally:
        services.stop_all(run, timeout=2)


def cluster_state(names: list[str]) -> RunState:
    specs = {n: {"argv": ["true"], "env": {}, "umask": -1, "user": None} for n in names}
    return RunState(
        mode="uwsgi",
        cluster={"network": {}, "ports": []},
        services={n: 100 + k for k, n in enumerate(names)},
        service_order=names,
        service_specs=specs,
    )


def test_a_node_is_every_process_of_it_in_start_order() -> None:
    state = cluster_state(
        ["mariadb", "node1-memcached", "node2-memcached", "node1-uwsgi", "node2-uwsgi"]
    )
    assert faults.target_services(state, "node2") == ["node2-memcached", "node2-uwsgi"]
    assert faults.target_services(state, "database") == ["mariadb"]
    with pytest.raises(faults.FaultError, match="this run has no node3"):
        faults.target_services(state, "node3")
    with pytest.raises(faults.FaultError, match="unknown target 'haproxy'"):
        faults.target_services(state, "haproxy")


def test_galera_members_are_targets_and_the_database_is_all_of_them() -> None:
    state = cluster_state(
        ["galera1", "galera2", "galera3", "haproxy-galera", "node1-uwsgi"]
    )
    assert faults.target_services(state, "galera2") == ["galera2"]
    assert faults.target_services(state, "database") == [
        "galera1",
        "galera2",
        "galera3",
    ]
    with pytest.raises(faults.FaultError, match="this run has no galera4"):
        faults.target_services(state, "galera4")


def test_on_a_single_host_node1_is_keystone_and_its_cache(run: RunDir) -> None:
    assert faults.target_services(run.state(), "node1") == ["uwsgi", "memcached"]
    with pytest.raises(faults.FaultError, match="this run has no database"):
        faults.target_services(run.state(), "database")


def test_kill_then_start_brings_the_host_back_with_new_pids(run: RunDir) -> None:
    before = dict(run.state().services)
    killed = faults.apply(run, "kill", "node1")
    assert killed.error is None
    assert not any(services.alive(pid) for pid in before.values())
    assert killed.done == [
        f"SIGKILL to memcached (pid {before['memcached']}) and its group",
        f"SIGKILL to uwsgi (pid {before['uwsgi']}) and its group",
    ]
    started = faults.apply(run, "start", "node1", timeout=20)
    assert started.error is None, started.done
    after = run.state().services
    assert set(after) == set(before) and not set(after.values()) & set(before.values())
    assert started.done[-1].startswith(f"node1 answered GET {run.state().url}/v3")
    logged = [json.loads(line) for line in (run.logs / faults.FAULTS_LOG).open()]
    assert [(f["action"], f["target"]) for f in logged] == [
        ("kill", "node1"),
        ("start", "node1"),
    ]
    assert logged[0]["started"] <= logged[0]["finished"] <= logged[1]["started"]


def test_start_leaves_running_processes_alone(run: RunDir) -> None:
    pids = dict(run.state().services)
    fault = faults.apply(run, "start", "node1", timeout=20)
    assert run.state().services == pids
    assert fault.done[0] == f"uwsgi (pid {pids['uwsgi']}) was running"


def test_freeze_and_thaw(run: RunDir) -> None:
    pid = run.state().services["uwsgi"]
    faults.apply(run, "freeze", "node1")
    deadline = time.monotonic() + 5  # SIGSTOP is asynchronous
    while psutil.Process(pid).status() != psutil.STATUS_STOPPED:
        assert time.monotonic() < deadline, "SIGSTOP did not stop it"
        time.sleep(0.02)
    faults.apply(run, "thaw", "node1")
    assert psutil.Process(pid).status() != psutil.STATUS_STOPPED


def test_kill_worker_kills_one_child_of_the_server(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    run.create()
    run.write_state(mode="uwsgi", url="http://127.0.0.1:9")
    master = services.start(run, "uwsgi", ["sh", "-c", "sleep 60 & sleep 60 & wait"])
    try:
        deadline = time.monotonic() + 10
        while len(psutil.Process(master.pid).children()) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        workers = sorted(p.pid for p in psutil.Process(master.pid).children())
        fault = faults.apply(run, "kill-worker", "node1")
        assert fault.done == [f"SIGKILL to uwsgi's worker pid {workers[0]}"]
        assert services.alive(master.pid)
        deadline = time.monotonic() + 5
        while services.alive(workers[0]):  # the shell reaps it
            assert time.monotonic() < deadline, "the worker outlived SIGKILL"
            time.sleep(0.05)
        assert services.alive(workers[1])
    finally:
        services.stop_all(run, timeout=2)


def test_a_failing_step_is_recorded_not_raised(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    run.create()
    run.write_state(mode="uwsgi", url="http://127.0.0.1:9")
    services.start(run, "uwsgi", ["sleep", "60"])
    try:
        fault = faults.apply(run, "kill-worker", "node1")
        assert fault.error is not None and "has no worker" in fault.error
        with pytest.raises(faults.FaultError, match="unknown action 'explode'"):
            faults.apply(run, "explode", "node1")
    finally:
        services.stop_all(run, timeout=2)
