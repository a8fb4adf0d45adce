"""Tests for rally_keystone_perf.deploy.probes (real sockets and children)."""

from __future__ import annotations

import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from rally_keystone_perf.deploy import preflight, probes, services
from rally_keystone_perf.layout.rundir import RunDir


@pytest.fixture
def run(tmp_path: Path) -> RunDir:
    folder = RunDir(tmp_path / "r")
    folder.create()
    return folder


def test_wait_until_reports_an_exit_with_the_logs(run: RunDir) -> None:
    proc = services.start(run, "bad", [sys.executable, "-c", "print('boom'); exit(3)"])
    with pytest.raises(services.ServiceError) as error:
        probes.wait_until(
            lambda: False,
            proc,
            "bad",
            10,
            lambda: (run.logs / "bad-stdout.log").read_text(),
        )
    assert str(error.value).startswith("bad exited with code 3 while starting")
    assert "boom" in str(error.value)


def test_wait_until_times_out(run: RunDir) -> None:
    proc = services.start(
        run, "slow", [sys.executable, "-c", "import time; time.sleep(30)"]
    )
    try:
        with pytest.raises(services.ServiceError, match="not ready within 0 s"):
            probes.wait_until(lambda: False, proc, "slow", 0.3, lambda: "(no log)")
    finally:
        services.stop_pid(proc.pid, timeout=2)


def test_port_and_socket_probes(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        assert probes.port_open("127.0.0.1", port)
    assert not probes.port_open("127.0.0.1", port)
    path = tmp_path / "s.sock"
    assert not probes.unix_socket_open(path)
    with socket.socket(socket.AF_UNIX) as unix:
        unix.bind(str(path))
        unix.listen(1)
        assert probes.unix_socket_open(path)


# --- health checks -----------------------------------------------------------


def test_probe_nothing_listening() -> None:
    port = preflight.pick_port("127.0.0.1", None)
    assert probes.probe(f"http://127.0.0.1:{port}/v3", timeout=1) is None


def test_probe_http_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(url: str, timeout: float) -> None:
        raise urllib.error.HTTPError(url, 503, "busy", None, None)  # type: ignore[arg-type]

    monkeypatch.setattr(urllib.request, "urlopen", fail)
    assert probes.probe("http://x/v3") == 503


def test_probe_ok(monkeypatch: pytest.MonkeyPatch) -> None:
    class Response:
        status = 200

        def __enter__(self) -> Response:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

    seen: list[tuple[str, float]] = []

    def ok(url: str, timeout: float) -> Response:
        seen.append((url, timeout))
        return Response()

    monkeypatch.setattr(urllib.request, "urlopen", ok)
    assert probes.probe("http://x/v3", timeout=1.5) == 200
    assert seen == [("http://x/v3", 1.5)]
