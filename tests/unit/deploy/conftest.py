"""Fixtures shared by the deploy tests."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import preflight


@pytest.fixture
def bound_port() -> Iterator[int]:
    """A port on 127.0.0.1 that this test is listening on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


@pytest.fixture
def no_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty venv bin folder and nothing on PATH."""
    venv_bin = tmp_path / "venv-bin"
    venv_bin.mkdir()
    monkeypatch.setattr(paths, "venv_bin", lambda name: venv_bin / name)
    monkeypatch.setattr(preflight.shutil, "which", lambda name: None)
    return venv_bin
