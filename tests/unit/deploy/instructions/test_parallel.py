"""Commands a few at a time; the running ones killed on the way out."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rally_keystone_perf.deploy.instructions import parallel


def _command(tmp_path: Path, name: str, code: str) -> parallel.Command:
    argv = [sys.executable, "-c", f"import sys, os; print(os.environ['X']); {code}"]
    return parallel.Command(argv, {"X": name}, tmp_path / f"{name}.log")


def test_exit_codes_in_order_and_logs_written(tmp_path: Path) -> None:
    commands = [
        _command(tmp_path, "one", "sys.exit(0)"),
        _command(tmp_path, "two", "sys.exit(3)"),
        _command(tmp_path, "three", "sys.exit(0)"),
    ]
    assert parallel.run_all(commands, 2) == [0, 3, 0]
    assert (tmp_path / "two.log").read_text() == "two\n"


def test_an_interrupt_kills_the_running_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list = []
    real = parallel._start

    def start(command: parallel.Command):
        started.append(real(command))
        return started[-1]

    def interrupt(seconds: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(parallel, "_start", start)
    monkeypatch.setattr(parallel.time, "sleep", interrupt)
    sleeper = _command(tmp_path, "sleeper", "import time; time.sleep(60)")
    with pytest.raises(KeyboardInterrupt):
        parallel.run_all([sleeper, sleeper], 2)
    assert len(started) == 2
    assert all(process.returncode is not None for process in started)
