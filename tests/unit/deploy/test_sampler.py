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
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from rally_keystone_perf.deploy import sampler
from rally_keystone_perf.deploy.rundir import RunDir
from rally_keystone_perf.deploy.sampler import FIELDS, ResourceSampler
from rally_keystone_perf.report.server_view import read_resources

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
    with ResourceSampler(busy.pid, out, interval=0.2) as resources:
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


def test_processes_that_come_and_go_keep_counting(
    tmp_path: Path, churn: subprocess.Popen
) -> None:
    _wait_for_children(churn.pid)
    out = tmp_path / "resources.csv"
    resources = ResourceSampler(churn.pid, out, interval=0.1).start()
    time.sleep(1.5)
    resources.stop()
    cpu = [s.cpu_seconds for s in read_resources(out)]
    assert cpu == sorted(cpu)  # an exited child's CPU is not lost
    assert cpu[-1] > cpu[0]


def test_start_and_stop_are_idempotent(tmp_path: Path, busy: subprocess.Popen) -> None:
    out = tmp_path / "resources.csv"
    resources = ResourceSampler(busy.pid, out, interval=0.1)
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
        with ResourceSampler(busy.pid, out, interval=0.1):
            time.sleep(0.2)
    text = out.read_text()
    assert text.count("timestamp") == 1
    assert len(read_resources(out)) == len(text.splitlines()) - 1


def test_a_missing_process_ends_the_thread_quietly(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    out = tmp_path / "resources.csv"
    resources = ResourceSampler(gone.pid, out, interval=0.1).start()
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
    resources = ResourceSampler(proc.pid, out, interval=0.1).start()
    proc.wait()
    deadline = time.monotonic() + 5
    while resources.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not resources.running
    assert resources.rows >= 1
    resources.stop()


def test_an_unwritable_file_does_not_raise(tmp_path: Path, busy) -> None:
    resources = ResourceSampler(busy.pid, tmp_path / "no" / "such" / "dir.csv")
    resources.start()
    resources.stop()
    assert not resources.running
    assert resources.error is not None and "FileNotFoundError" in resources.error


def test_unreadable_processes_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    class Denied:
        pid = 1

        def oneshot(self) -> Denied:
            raise psutil.AccessDenied(1)

    assert sampler._read(Denied()) is None


def test_sample_without_the_thread(tmp_path: Path, busy: subprocess.Popen) -> None:
    _wait_for_children(busy.pid)
    resources = ResourceSampler(busy.pid, tmp_path / "unused.csv")
    row = resources.sample()
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
    assert resources.out_csv == run.logs / "resources.csv"
    assert read_resources(resources.out_csv)
