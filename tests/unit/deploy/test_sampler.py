"""Tests for rally_keystone_perf.deploy.sampler against real child processes.

Only shapes and directions are asserted (rows written, CPU growing, memory
above zero), never timing figures.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from rally_keystone_perf.deploy import process_tree, sampler
from rally_keystone_perf.deploy.sampler import ResourceSampler
from rally_keystone_perf.layout.resources import FIELDS
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.readers.resources import read_resources

# a parent that keeps a busy child; with CHURN, short-lived busy children in turn
PARENT = textwrap.dedent(
    """\
    import subprocess, sys, time
    busy = "import time\\nend = time.time() + {life}\\nwhile time.time() < end: pass"
    while True:
        child = subprocess.Popen([sys.executable, "-c", busy])
        child.wait()
    """
)


def _spawn(life: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", PARENT.format(life=life)])


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        children = []
    proc.kill()
    proc.wait()
    for child in children:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass


@pytest.fixture
def busy() -> Iterator[subprocess.Popen[bytes]]:
    """A python parent with one long-lived busy python child."""
    proc = _spawn(life=60)
    yield proc
    _kill_tree(proc)


@pytest.fixture
def churn() -> Iterator[subprocess.Popen[bytes]]:
    """A python parent whose busy children exit and are replaced every 0.3 s."""
    proc = _spawn(life=0.3)
    yield proc
    _kill_tree(proc)


def _wait_for_children(pid: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not psutil.Process(pid).children() and time.monotonic() < deadline:
        time.sleep(0.05)


def _sampler_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("resource-sampler")]


def _rows(path: Path) -> list[list[str]]:
    lines = path.read_text().splitlines()
    return [line.split(",") for line in lines]


def test_samples_a_process_tree(tmp_path: Path, busy: subprocess.Popen) -> None:
    _wait_for_children(busy.pid)
    out = tmp_path / "resources.csv"
    with ResourceSampler.for_pid(busy.pid, out, interval=0.2) as resources:
        time.sleep(1.5)
    assert not resources.running
    assert not _sampler_threads()
    assert resources.error is None
    header, *rows = _rows(out)
    assert tuple(header) == FIELDS
    assert len(rows) >= 3
    assert len(rows) == resources.rows
    samples = read_resources(out)
    assert len(samples) == len(rows)
    assert [s.processes for s in samples] == [2] * len(samples)
    assert all(s.rss_bytes > 0 for s in samples)
    cpu = [s.cpu_seconds for s in samples]
    assert cpu == sorted(cpu)
    assert cpu[-1] > cpu[0]  # the busy child burns CPU
    assert all(s.timestamp > 0 for s in samples)


def test_a_paused_sampler_writes_rows_only_while_sampling(
    tmp_path: Path, busy: subprocess.Popen
) -> None:
    out = tmp_path / "resources.csv"
    resources = ResourceSampler.for_pid(busy.pid, out, interval=0.05)
    resources.pause()
    resources.start()
    time.sleep(0.4)
    assert resources.rows == 0  # idle: not a single row
    with resources.sampling():
        time.sleep(0.4)
    during = resources.rows
    assert during >= 3
    time.sleep(0.4)
    assert resources.rows <= during + 1  # paused again (one row in flight)
    resources.stop()
    assert resources.running is False


def test_processes_that_come_and_go_keep_counting(
    tmp_path: Path, churn: subprocess.Popen
) -> None:
    _wait_for_children(churn.pid)
    out = tmp_path / "resources.csv"
    resources = ResourceSampler.for_pid(churn.pid, out, interval=0.1).start()
    time.sleep(1.5)
    resources.stop()
    cpu = [s.cpu_seconds for s in read_resources(out)]
    assert cpu == sorted(cpu)  # an exited child's CPU is not lost
    assert cpu[-1] > cpu[0]


def test_start_and_stop_are_idempotent(tmp_path: Path, busy: subprocess.Popen) -> None:
    out = tmp_path / "resources.csv"
    resources = ResourceSampler.for_pid(busy.pid, out, interval=0.1)
    resources.stop()  # before start: nothing to stop
    assert resources.start() is resources
    resources.start()
    assert len(_sampler_threads()) == 1
    time.sleep(0.3)
    resources.stop()
    resources.stop()
    resources.start()  # a stopped sampler does not start again
    assert not resources.running
    assert not _sampler_threads()
    assert out.read_text().count("timestamp") == 1


def test_appends_to_an_existing_file_without_a_second_header(
    tmp_path: Path, busy: subprocess.Popen
) -> None:
    out = tmp_path / "resources.csv"
    for _ in range(2):
        with ResourceSampler.for_pid(busy.pid, out, interval=0.1):
            time.sleep(0.2)
    text = out.read_text()
    assert text.count("timestamp") == 1
    assert len(read_resources(out)) == len(text.splitlines()) - 1


def test_a_missing_process_ends_the_thread_quietly(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    out = tmp_path / "resources.csv"
    resources = ResourceSampler.for_pid(gone.pid, out, interval=0.1).start()
    deadline = time.monotonic() + 5
    while resources.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not resources.running
    assert resources.rows == 0
    assert resources.error is not None
    assert out.read_text().splitlines() == [",".join(FIELDS)]
    resources.stop()


def test_the_thread_ends_when_the_server_exits(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"])
    out = tmp_path / "resources.csv"
    resources = ResourceSampler.for_pid(proc.pid, out, interval=0.1).start()
    proc.wait()
    deadline = time.monotonic() + 5
    while resources.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not resources.running
    assert resources.rows >= 1
    resources.stop()


def test_an_unwritable_file_does_not_raise(tmp_path: Path, busy) -> None:
    resources = ResourceSampler.for_pid(busy.pid, tmp_path / "no" / "such" / "dir.csv")
    resources.start()
    resources.stop()
    assert not resources.running
    assert resources.error is not None and "FileNotFoundError" in resources.error


def test_unreadable_processes_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    class Denied:
        pid = 1

        def oneshot(self) -> Denied:
            raise psutil.AccessDenied(1)

    assert process_tree._read(Denied()) is None


def test_sample_without_the_thread(tmp_path: Path, busy: subprocess.Popen) -> None:
    _wait_for_children(busy.pid)
    resources = ResourceSampler.for_pid(busy.pid, tmp_path / "unused.csv")
    row = resources.targets[0].sample()
    assert row is not None
    timestamp, cpu, rss, count = row
    assert timestamp > 0 and cpu >= 0 and rss > 0 and count == 2
    assert not (tmp_path / "unused.csv").exists()


def test_start_for_run(run: RunDir, busy: subprocess.Popen) -> None:
    assert sampler.start_for_run(run) is None  # no server pid recorded
    run.write_state(server_pid=busy.pid)
    resources = sampler.start_for_run(run, interval=0.1)
    assert resources is not None
    time.sleep(0.2)
    resources.stop()
    assert [t.out_csv for t in resources.targets] == [
        run.logs / "resources.csv",
        run.logs / "resources-client.csv",  # Rally's tree, none here yet
    ]
    assert read_resources(run.logs / "resources.csv")
    assert {s.processes for s in read_resources(run.logs / "resources-client.csv")} == {
        0
    }


# --- a cluster's tiers ---------------------------------------------------------

SLEEP = "import time; time.sleep(60)"
# burns ``cpu`` seconds of CPU (whatever the machine's load), says so, sleeps
BURN = (
    "import time\nwhile time.process_time() < {cpu}: pass\n"
    "print('burnt', flush=True)\ntime.sleep(60)"
)


@pytest.fixture
def spawn() -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start python processes (``code``); every one is killed at the end."""
    started: list[subprocess.Popen[bytes]] = []

    def start(code: str = SLEEP) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()
        proc.wait()
        if proc.stdout:
            proc.stdout.close()


def _burnt(proc: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
    """Wait until a :data:`BURN` process has burnt its CPU."""
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"burnt\n"
    return proc


def test_cluster_tiers_group_the_services_by_host() -> None:
    services = {
        "node10-uwsgi": 10,
        "node2-nginx": 4,
        "node2-uwsgi": 3,
        "node1-uwsgi": 1,
        "node1-memcached": 2,
        "postgresql": 5,
        "haproxy": 6,
        "slapd": 7,
        "nodeX-uwsgi": 8,
    }
    tiers = sampler.cluster_tiers(services)
    assert tiers == {
        "node1": {"node1-memcached": 2, "node1-uwsgi": 1},
        "node2": {"node2-nginx": 4, "node2-uwsgi": 3},
        "node10": {"node10-uwsgi": 10},
        "db": {"postgresql": 5},
        "haproxy": {"haproxy": 6},
    }
    assert list(tiers) == ["node1", "node2", "node10", "db", "haproxy"]


def test_galera_members_and_their_haproxy_are_tiers_of_their_own() -> None:
    services = {
        "galera10": 10,
        "galera2": 2,
        "galera1": 1,
        "haproxy-galera": 4,
        "haproxy": 5,
        "node1-uwsgi": 6,
        "galeraX": 7,
    }
    tiers = sampler.cluster_tiers(services)
    assert list(tiers) == [
        "node1",
        "galera1",
        "galera2",
        "galera10",
        "haproxy",
        "haproxy-galera",
    ]
    assert tiers["galera2"] == {"galera2": 2}
    assert tiers["haproxy-galera"] == {"haproxy-galera": 4}


def test_start_for_run_samples_every_tier_of_a_cluster(run: RunDir, spawn) -> None:
    names = ["node1-uwsgi", "node1-memcached", "node2-uwsgi", "mariadb", "haproxy"]
    pids = {name: spawn().pid for name in names}
    cluster = {"network": {}, "ports": [5000, 5000]}
    run.write_state(server_pid=pids["node1-uwsgi"], services=pids, cluster=cluster)
    resources = sampler.start_for_run(run, interval=0.1)
    assert resources is not None
    time.sleep(0.35)
    resources.stop()
    assert not resources.running and resources.error is None
    assert not (run.logs / "resources.csv").exists()
    counts = {}
    for tier in ("node1", "node2", "db", "haproxy"):
        samples = read_resources(run.logs / f"resources-{tier}.csv")
        assert len(samples) >= 2  # the first one and the one at stop
        counts[tier] = {s.processes for s in samples}
    assert counts == {"node1": {2}, "node2": {1}, "db": {1}, "haproxy": {1}}
    assert resources.rows == sum(
        len(read_resources(target.out_csv)) for target in resources.targets
    )


def test_a_restarted_service_is_followed_and_its_cpu_kept(run: RunDir, spawn) -> None:
    first = _burnt(spawn(BURN.format(cpu=0.2)))
    run.write_state(services={"node1-uwsgi": first.pid}, cluster={"ports": [1]})
    (target,) = sampler.cluster_targets(run, run.state())
    assert target.out_csv == run.logs / "resources-node1.csv"
    before = target.sample()
    assert before is not None
    assert before[1] >= 0.15 and before[3] == 1  # /proc counts in 10 ms ticks
    first.kill()
    first.wait()
    down = target.sample()  # killed, not restarted yet: still sampling
    assert down is not None
    assert down[1:] == (before[1], 0, 0)
    second = _burnt(spawn(BURN.format(cpu=0.2)))
    run.write_state(services={"node1-uwsgi": second.pid})  # as a restart records it
    after = target.sample()
    assert after is not None
    assert after[3] == 1
    assert after[1] >= before[1] + 0.15  # both processes' CPU
    assert target.error is None


def test_a_single_host_server_restarted_is_followed(run: RunDir, spawn) -> None:
    first = spawn()
    run.write_state(server_pid=first.pid, services={"uwsgi": first.pid})
    resources = sampler.start_for_run(run, interval=0.05)
    assert resources is not None
    try:
        time.sleep(0.15)
        first.kill()  # a fault's kill node1 on a single host
        first.wait()
        time.sleep(0.15)
        assert resources.running  # not ended by the kill
        second = spawn()
        run.write_state(server_pid=second.pid, services={"uwsgi": second.pid})
        time.sleep(0.2)
    finally:
        resources.stop()
    assert resources.error is None
    counts = [s.processes for s in read_resources(run.logs / "resources.csv")]
    assert counts[0] == 1 and 0 in counts and counts[-1] == 1, counts


def test_a_single_host_target_ends_with_its_process(run: RunDir, spawn) -> None:
    proc = spawn()
    target = process_tree.Target(run.logs / "resources.csv", {"server": proc.pid})
    assert target.sample() is not None
    proc.kill()
    proc.wait()
    assert target.sample() is None
    assert target.error == f"process {proc.pid} has exited"


def test_host_tiers_are_the_groups_of_a_single_host() -> None:
    services = {"uwsgi": 1, "memcached": 2, "postgresql": 3, "slapd": 4}
    assert sampler.host_tiers(services, "uwsgi") == {
        "node1": {"uwsgi": 1, "memcached": 2},  # one cgroup: --node-cpus
        "db": {"postgresql": 3},  # --db-cpus
    }
    assert sampler.host_tiers({"apache2": 5}, "apache2") == {"node1": {"apache2": 5}}


def test_a_single_host_with_quotas_is_sampled_by_tier_too(run: RunDir, spawn) -> None:
    pids = {name: spawn().pid for name in ("uwsgi", "memcached", "mariadb")}
    quota = {"version": "v1", "node": 0.5, "db": 1.0, "groups": {}}
    run.write_state(server_pid=pids["uwsgi"], services=pids, cpu_quota=quota)
    resources = sampler.start_for_run(run, interval=0.1)
    assert resources is not None
    time.sleep(0.25)
    resources.stop()
    assert resources.error is None
    processes = {
        csv: {s.processes for s in read_resources(run.logs / csv)}
        for csv in ("resources.csv", "resources-node1.csv", "resources-db.csv")
    }
    assert processes == {
        "resources.csv": {1},  # the server's tree, as without quotas
        "resources-node1.csv": {2},  # with its memcached
        "resources-db.csv": {1},
    }
