"""Tests for rally_keystone_perf.deploy.process_tree against real processes.

A parent starts a child that burns a known amount of CPU once told to (a
file appears), then waits for it: what a Rally runner or a Locust master
does with its workers at the load's end. Only lower and upper bounds of
CPU seconds are asserted, never timings.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from rally_keystone_perf.deploy import process_tree

BURN = 0.4  # CPU seconds the child spends after the first sample
# the parent: starts the child, says its pid, waits for it, says so, sleeps
PARENT = textwrap.dedent(
    """\
    import subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", sys.argv[1]])
    print(child.pid, flush=True)
    child.wait()
    print("reaped", flush=True)
    time.sleep(60)
    """
)
# the child: waits for the file, then burns BURN seconds of CPU and exits
CHILD = textwrap.dedent(
    """\
    import os, time
    while not os.path.exists({gate!r}): time.sleep(0.01)
    start = time.process_time()
    while time.process_time() < start + {burn}: pass
    """
)


@pytest.fixture
def parent(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """The parent process (its child started and waiting) and the child's gate."""
    gate = tmp_path / "go"
    code = CHILD.format(gate=str(gate), burn=BURN)
    proc = subprocess.Popen(
        [sys.executable, "-c", PARENT, code], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    child = int(proc.stdout.readline())  # it runs
    yield proc, gate
    with contextlib.suppress(ProcessLookupError):
        os.kill(child, signal.SIGKILL)  # a test that never opened its gate
    proc.kill()
    proc.wait()
    proc.stdout.close()


def _cpu(target: process_tree.Target) -> float:
    row = target.sample()
    assert row is not None
    return row[1]


def _after_reap(proc: subprocess.Popen[str], gate: Path) -> None:
    gate.touch()
    assert proc.stdout is not None
    assert proc.stdout.readline() == "reaped\n"


def test_a_reaped_child_is_counted_in_full(parent, tmp_path: Path) -> None:
    proc, gate = parent
    reaped = process_tree.Target(tmp_path / "a.csv", {"p": proc.pid}, reaped=True)
    plain = process_tree.Target(tmp_path / "b.csv", {"p": proc.pid})
    before = {"reaped": _cpu(reaped), "plain": _cpu(plain)}
    assert reaped.sample()[3] == 2  # type: ignore[index]  # parent and child
    _after_reap(proc, gate)
    gained = {"reaped": _cpu(reaped) - before["reaped"]}
    gained["plain"] = _cpu(plain) - before["plain"]
    # the child burnt BURN after the last sample that saw it: only the
    # reaped count has it (through the parent's children's CPU)
    assert gained["reaped"] >= BURN * 0.9
    assert gained["plain"] < BURN * 0.5
    again = _cpu(reaped) - before["reaped"]
    assert again < BURN * 1.5  # counted once, not once more as exited


def test_a_child_read_then_reaped_is_not_counted_twice(parent, tmp_path: Path) -> None:
    proc, gate = parent
    target = process_tree.Target(tmp_path / "a.csv", {"p": proc.pid}, reaped=True)
    start = _cpu(target)
    gate.touch()
    cpu = [_cpu(target) for _ in range(200)]  # some read the child burning
    assert proc.stdout is not None
    assert proc.stdout.readline() == "reaped\n"
    cpu.append(_cpu(target))
    assert cpu == sorted(cpu)
    assert BURN * 0.9 <= cpu[-1] - start < BURN * 1.5


def test_a_root_not_started_yet_is_waited_for(parent, tmp_path: Path) -> None:
    proc, _ = parent
    pids: dict[str, int | None] = {"rally": None}
    target = process_tree.Target(tmp_path / "c.csv", {"rally": None}, pids.get)
    assert target.sample()[1:] == (0.0, 0, 0)  # type: ignore[index]
    pids["rally"] = proc.pid
    assert target.sample()[3] == 2  # type: ignore[index]
    assert target.error is None
