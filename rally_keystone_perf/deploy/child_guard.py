"""Run a command whose whole process group must not outlive our caller.

``python -m rally_keystone_perf.deploy.child_guard -- ARGV...``

Rally's ``task start`` forks worker processes for the load; a parent-death
signal on Rally itself stops Rally, not them, and they would keep loading
Keystone after the command that started them was killed (SIGKILL, the OOM
killer). The guard asks the kernel for SIGTERM when its parent dies
(``PR_SET_PDEATHSIG``), runs ARGV as its child and, on SIGTERM or SIGHUP,
ends ARGV and everything it forked: the whole process group when the guard
leads it (the caller starts it with ``start_new_session``), else ARGV alone.
SIGINT is passed on to ARGV. Otherwise it exits with ARGV's exit code.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType

PR_SET_PDEATHSIG = 1  # linux/prctl.h
GRACE_SECONDS = 5.0


def die_with_parent() -> None:
    """SIGTERM to us when our parent dies (Linux; elsewhere nothing)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return


def _end(child: subprocess.Popen[bytes]) -> None:
    """SIGTERM ARGV's group (or ARGV), wait a little, then SIGKILL."""
    leader = os.getpgrp() == os.getpid()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # killpg reaches us too
    if leader:
        os.killpg(0, signal.SIGTERM)
    else:
        child.terminate()
    deadline = time.monotonic() + GRACE_SECONDS
    while child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if leader:
        os.killpg(0, signal.SIGKILL)  # the rest of the group, and us
    child.kill()
    sys.exit(128 + signal.SIGTERM)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ARGV (after ``--``) under the guard; return its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print("usage: python -m rally_keystone_perf.deploy.child_guard -- ARGV")
        return 2
    parent = os.getppid()
    die_with_parent()
    if os.getppid() != parent:  # the parent died before prctl took effect
        return 128 + signal.SIGTERM
    child = subprocess.Popen(args)

    def on_stop(_signum: int, _frame: FrameType | None) -> None:
        _end(child)

    def on_interrupt(signum: int, _frame: FrameType | None) -> None:
        child.send_signal(signum)

    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGHUP, on_stop)
    signal.signal(signal.SIGINT, on_interrupt)
    code = child.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
