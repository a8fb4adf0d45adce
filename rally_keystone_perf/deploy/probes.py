"""Readiness probes: is a port, a socket or a URL answering yet."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from rally_keystone_perf.deploy.services import ServiceError


def wait_until(
    ready: Callable[[], bool],
    proc: subprocess.Popen[bytes],
    what: str,
    timeout: float,
    logs: Callable[[], str],
    not_ready: str | None = None,
) -> float:
    """Poll ``ready`` until true; seconds waited, or ServiceError with ``logs``.

    ``not_ready`` phrases the timeout (default: "<what> was not ready").
    """
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            raise ServiceError(
                f"{what} exited with code {proc.returncode} while starting; "
                f"last lines of its logs:\n{logs()}"
            )
        if ready():
            return time.monotonic() - started
        time.sleep(0.1)
    raise ServiceError(
        f"{not_ready or what + ' was not ready'} within {timeout:.0f} s; "
        f"last lines of its logs:\n{logs()}"
    )


def port_open(host: str, port: int) -> bool:
    """True when a TCP connection to host:port succeeds."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def probe(url: str, timeout: float = 2.0) -> int | None:
    """HTTP status of GET ``url``, or None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return None


def unix_socket_open(path: Path) -> bool:
    """True when a connection to the unix socket ``path`` succeeds."""
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        try:
            sock.connect(str(path))
        except OSError:
            return False
    return True
