"""Fixtures shared by the unit tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.client import keystone_v3
from rally_keystone_perf.layout.rundir import RunDir
from tests.unit import rally_fakes  # noqa: F401  Rally's plugins and options first


@pytest.fixture
def fresh_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start with an empty per-process session cache."""
    monkeypatch.setattr(keystone_v3, "_SESSIONS", {})
    # requests_mock stands in for the server, on the keystoneauth transport
    # (lean_http is tested over real sockets in tests/unit/plugins)
    monkeypatch.setattr(keystone_v3, "_CHOSEN", {"transport": "keystoneauth"})


@pytest.fixture
def run(tmp_path: Path) -> RunDir:
    """A created run directory ``tmp_path / "run"``."""
    run = RunDir(tmp_path / "run")
    run.create()
    return run
