"""Tests for rally_keystone_perf.stop_signals (real signals to this process)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from rally_keystone_perf import stop_signals


@pytest.fixture
def installed() -> Iterator[None]:
    before = {s: signal.getsignal(s) for s in stop_signals.STOP_SIGNALS}
    stop_signals.reset()
    assert stop_signals.install() is True
    yield
    stop_signals.reset()
    for signum, handler in before.items():
        signal.signal(signum, handler)


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
def test_first_signal_interrupts_like_ctrl_c(
    installed: None, signum: int, code: int, capfd: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signum)
    assert stop_signals.received() == signum
    assert stop_signals.exit_code(130) == code
    assert "stopping as for Ctrl-C" in capfd.readouterr().err


def test_later_signals_are_ignored_while_stopping(installed: None, capfd) -> None:
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGTERM)  # no exception: the run is stopping
    assert "already stopping" in capfd.readouterr().err


class _BusyStderr:
    """sys.stderr caught in the middle of a print by the signal."""

    def fileno(self) -> int:
        return 2

    def write(self, _: str) -> int:
        raise RuntimeError("reentrant call inside <_io.BufferedWriter>")

    def flush(self) -> None:
        raise RuntimeError("reentrant call inside <_io.BufferedWriter>")


def test_a_signal_during_a_print_still_stops(
    installed: None, capfd, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stderr", _BusyStderr())
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
    monkeypatch.undo()
    assert "SIGTERM: stopping as for Ctrl-C" in capfd.readouterr().err


def test_shielded_block_finishes_then_interrupts(installed: None) -> None:
    finished = []
    with pytest.raises(KeyboardInterrupt):
        with stop_signals.shielded():
            os.kill(os.getpid(), signal.SIGTERM)
            finished.append("stop completed")
    assert finished == ["stop completed"]


def test_no_signal_no_change(installed: None) -> None:
    with stop_signals.shielded():
        pass
    assert stop_signals.exit_code(2) == 2


def test_a_killed_command_exits_143() -> None:
    """A real process: SIGTERM while it waits becomes exit 143 via main-like code."""
    code = textwrap.dedent(
        """
        import sys, time
        from rally_keystone_perf import stop_signals
        stop_signals.install()
        try:
            print("ready", flush=True)
            time.sleep(30)
        except KeyboardInterrupt:
            print("cleaned up", flush=True)
            sys.exit(stop_signals.exit_code(130))
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=20)
    assert out == "cleaned up\n"
    assert proc.returncode == 143
