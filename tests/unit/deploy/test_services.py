"""Tests for rally_keystone_perf.deploy.services (real child processes)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rally_keystone_perf.deploy import services
from rally_keystone_perf.layout.rundir import RunDir, RunState


@pytest.fixture
def run(tmp_path: Path) -> RunDir:
    folder = RunDir(tmp_path / "r")
    folder.create()
    return folder


def _zombie(comm: str) -> subprocess.Popen[bytes]:
    """A child that renamed itself to ``comm`` and exited, not yet reaped."""
    code = f"open('/proc/self/comm', 'w').write({comm!r})"
    proc = subprocess.Popen([sys.executable, "-c", code])
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped
    return proc


def test_alive() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "input()"], stdin=subprocess.PIPE)
    try:
        assert services.alive(proc.pid) is True
    finally:
        proc.communicate(b"\n", timeout=10)
    assert services.alive(proc.pid) is False


@pytest.mark.parametrize("comm", ["server", "uWSGI master"])
def test_a_zombie_is_not_alive(comm: str) -> None:
    proc = _zombie(comm)
    try:
        assert services.alive(proc.pid) is False
    finally:
        proc.wait()


def test_start_records_pids_and_stop_all_takes_the_whole_groups(run: RunDir) -> None:
    # each "server" forks a worker that ignores SIGTERM, as daemons' workers may
    worker = (
        "import os, signal, time\n"
        "if os.fork() == 0:\n"
        "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "time.sleep(60)\n"
    )
    first = services.start(run, "db", [sys.executable, "-c", worker])
    second = services.start(run, "web", [sys.executable, "-c", worker], {"X": "1"})
    assert run.read_state()["services"] == {"db": first.pid, "web": second.pid}
    time.sleep(0.3)
    assert services.group_alive(first.pid) and services.group_alive(second.pid)
    assert services.stop_all(run, timeout=2) is True
    assert not services.group_alive(first.pid)
    assert not services.group_alive(second.pid)
    assert services.stop_all(run, timeout=2) is False


def test_stop_all_stops_the_last_started_first(
    run: RunDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    # names whose sorted order (run.json sorts keys) is not the start order
    for name in ("mariadb", "uwsgi", "epmd", "rabbitmq", "nova-compute"):
        services.start(run, name, [sys.executable, "-c", "pass"])
    stopped: list[int] = []
    monkeypatch.setattr(
        services, "stop_pid", lambda pid, timeout: stopped.append(pid) or True
    )
    assert services.stop_all(run) is True
    pids = run.read_state()["services"]
    order = ["nova-compute", "rabbitmq", "epmd", "uwsgi", "mariadb"]
    assert stopped == [pids[name] for name in order]


def test_stop_order_batches_consecutive_processes_of_one_tier() -> None:
    state = {
        "services": {"db": 1, "mq": 2, "api": 3, "compute": 4, "other": 5},
        "service_order": ["db", "mq", "api", "compute", "other"],
        "service_tiers": {"api": "os", "compute": "os", "db": "os"},
    }
    assert services.stop_order(RunState.from_json(state)) == [[5], [4, 3], [2], [1]]
    assert services.stop_order(RunState.from_json({"server_pid": 9})) == [[9]]


def test_stop_all_stops_a_tier_together(run: RunDir) -> None:
    slow = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *a: (time.sleep(1), sys.exit(0)))\n"
        "time.sleep(60)\n"
    )
    procs = [
        services.start(run, f"s{i}", [sys.executable, "-c", slow], tier="t")
        for i in range(3)
    ]
    time.sleep(0.5)  # the handlers are installed
    started = time.monotonic()
    assert services.stop_all(run, timeout=10) is True
    # three 1-second shutdowns side by side, not one after another
    assert time.monotonic() - started < 2.8
    assert not [p for p in procs if services.group_alive(p.pid)]


def test_record_forget_and_running(run: RunDir) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    try:
        services.record(run, "rally", proc.pid)
        assert services.running(run.state()) == [f"rally (pid {proc.pid})"]
        assert run.read_state()["service_order"] == ["rally"]
        services.forget(run, "rally")
        state = run.read_state()
        assert state["services"] == {} and state["service_order"] == []
        services.forget(run, "rally")  # twice: nothing to do
    finally:
        proc.kill()
        proc.wait()
    services.record(run, "gone", proc.pid)
    assert services.running(run.state()) == []


def test_restart_starts_a_service_as_it_first_started(run: RunDir) -> None:
    first = services.start(run, "sleeper", ["sleep", "60"], {"A": "1"}, tier="t")
    try:
        spec = run.state().service_specs["sleeper"]
        assert spec == {
            "argv": ["sleep", "60"],
            "env": {"A": "1"},
            "umask": services.current_umask(),  # what it inherited, recorded
            "user": None,
        }
        first.kill()
        first.wait()
        again = services.restart(run, "sleeper")
        assert again.pid != first.pid
        assert run.state().services == {"sleeper": again.pid}
        assert run.state().service_tiers == {"sleeper": "t"}
        with pytest.raises(services.ServiceError, match="how nothing was started"):
            services.restart(run, "nothing")
    finally:
        services.stop_all(run, timeout=2)


def test_current_umask_reads_without_changing_it() -> None:
    before = os.umask(0o027)
    try:
        assert services.current_umask() == 0o027
        assert services.current_umask() == 0o027  # unchanged by reading
    finally:
        os.umask(before)


def test_a_restarted_keystone_is_the_runs_server(run: RunDir) -> None:
    first = services.start(run, "uwsgi", ["sleep", "60"])
    try:
        run.write_state(server_pid=first.pid)
        first.kill()
        first.wait()
        again = services.restart(run, "uwsgi")
        assert run.state().server_pid == again.pid
    finally:
        services.stop_all(run, timeout=2)


def test_stop_ends_a_frozen_group_without_waiting_out_the_grace(run: RunDir) -> None:
    proc = services.start(run, "frozen", ["sleep", "60"])
    os.killpg(proc.pid, signal.SIGSTOP)
    started = time.monotonic()
    assert services.stop_pid(proc.pid, timeout=20)
    assert time.monotonic() - started < 5
    assert not services.alive(proc.pid)


def test_concurrent_records_lose_nothing(run: RunDir) -> None:
    """Two processes recording services at once (a hook and the command)."""
    import multiprocessing

    def record_many(prefix: str) -> None:
        for k in range(25):
            services.record(run, f"{prefix}{k}", 1_000_000 + k)

    workers = [
        multiprocessing.get_context("fork").Process(target=record_many, args=(p,))
        for p in ("a", "b")
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert [worker.exitcode for worker in workers] == [0, 0]
    assert len(run.state().services) == 50
    assert len(run.state().service_order) == 50


def test_a_guarded_child_and_its_workers_die_with_the_parent(tmp_path: Path) -> None:
    """The parent is SIGKILLed: the guarded child and what it forked stop."""
    pids = tmp_path / "pids"
    worker = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"  # a load worker, as Rally's runner forks
        f"    open({str(pids)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
        f"open({str(pids)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
        "time.sleep(60)\n"
    )
    child = services.dying_with_parent([sys.executable, "-c", worker])
    parent = (
        "import subprocess, time\n"
        f"subprocess.Popen({child!r}, start_new_session=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", parent])
    deadline = time.monotonic() + 20
    while not pids.exists() or len(pids.read_text().split()) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    started = [int(pid) for pid in pids.read_text().split()]
    assert all(services.alive(pid) for pid in started)
    proc.kill()
    proc.wait()
    while [pid for pid in started if services.alive(pid)]:
        assert time.monotonic() < deadline, "a child outlived its parent"
        time.sleep(0.05)


def test_the_guard_passes_the_exit_code_on() -> None:
    argv = services.dying_with_parent([sys.executable, "-c", "raise SystemExit(7)"])
    assert subprocess.run(argv, timeout=30).returncode == 7


def test_start_with_a_private_umask(run: RunDir) -> None:
    code = "open('made-here', 'w').write('secret')"
    proc = services.start(run, "writer", [sys.executable, "-c", code], umask=0o077)
    assert proc.wait(timeout=20) == 0
    assert (run.root / "made-here").stat().st_mode & 0o777 == 0o600


def test_a_secret_in_the_environment_is_refused(run: RunDir) -> None:
    with pytest.raises(ValueError, match="a secret in its environment"):
        services.start(run, "x", ["true"], env={"OS_PASSWORD": "p"})
    assert "x" not in run.state().services  # nothing started, nothing recorded
