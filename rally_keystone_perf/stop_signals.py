"""SIGTERM and SIGHUP stop a run the way Ctrl-C does.

``timeout``, CI cancellation, systemd and ``kill`` send SIGTERM; a closed
terminal sends SIGHUP. Python's default for both is to die at once, which
left every server and the Rally child running, exported no results and never
deleted the users a context had created. :func:`install` turns the first of
them into a :class:`KeyboardInterrupt` in the main thread, so the same code
path as Ctrl-C runs: Rally's task is aborted (its contexts clean up, the
results so far are exported), the servers are stopped, and the command exits
with ``128 + signal`` (143 for SIGTERM, 129 for SIGHUP). Later ones are noted
and ignored while the run stops; Ctrl-C still forces.

Inside :func:`shielded` (stopping servers) a first signal is only recorded:
interrupting a stop half-way is what would leave processes behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

_received: int | None = None
_shield_depth = 0


def _echo(message: str) -> None:
    """One line to stderr's file descriptor, unbuffered.

    A signal handler runs between two bytecodes of the main thread, which may
    be inside ``print`` to the same stream: writing through ``sys.stderr``
    then fails with "reentrant call inside <_io.BufferedWriter>" (seen once in
    CI, the SIGTERM lost). ``os.write`` takes no lock.
    """
    try:
        os.write(sys.stderr.fileno(), f"{message}\n".encode())
    except (OSError, ValueError):  # stderr closed or not a file: say nothing
        pass


def _handler(signum: int, _frame: FrameType | None) -> None:
    global _received
    name = signal.Signals(signum).name
    if _received is not None:
        _echo(f"{name} again: already stopping (Ctrl-C forces)")
        return
    _received = signum
    if _shield_depth:
        _echo(f"{name}: stopping once the servers are down")
        return
    _echo(f"{name}: stopping as for Ctrl-C (results kept, servers stopped)")
    raise KeyboardInterrupt(name)


def install() -> bool:
    """Handle SIGTERM and SIGHUP as Ctrl-C; False outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return False
    for signum in STOP_SIGNALS:
        signal.signal(signum, _handler)
    return True


def received() -> int | None:
    """The stop signal received so far, if any."""
    return _received


def exit_code(code: int) -> int:
    """``128 + signal`` after a stop signal, else ``code``."""
    return 128 + _received if _received is not None else code


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """Record, not raise, a first stop signal while the block runs.

    When the block ends a signal received during it is raised then, so the
    caller still stops.
    """
    global _shield_depth
    before = _received
    _shield_depth += 1
    try:
        yield
    finally:
        _shield_depth -= 1
    if _shield_depth == 0 and before is None and _received is not None:
        raise KeyboardInterrupt(signal.Signals(_received).name)


def reset() -> None:
    """Forget a received signal (tests)."""
    global _received, _shield_depth
    _received = None
    _shield_depth = 0
