"""Tests for rally_keystone_perf.run.session (Keystone + Rally for one block)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy import launcher, sampler
from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.deploy.rundir import RunDir
from rally_keystone_perf.run import rally_runner, session


def _secrets(run: RunDir, pool: bool) -> None:
    run.admin_secret.write_text(json.dumps({"password": "ADMIN-PW"}))
    if pool:
        run.user_pool.write_text(json.dumps({"password": "POOL-PW"}))


@pytest.mark.parametrize("pool", [True, False])
def test_run_redactor_hides_every_generated_password(run: RunDir, pool) -> None:
    _secrets(run, pool)
    hidden = session.run_redactor(run)("ADMIN-PW and POOL-PW")
    assert hidden == ("*** and ***" if pool else "*** and POOL-PW")


def test_run_redactor_hides_the_nova_stack_passwords(run: RunDir) -> None:
    _secrets(run, pool=False)
    plan = {"service_password": "S-PW", "db_password": "D-PW", "rabbit_password": "R"}
    (run.private / "stack.json").write_text(json.dumps(plan))
    assert session.run_redactor(run)("S-PW D-PW R ADMIN-PW") == "*** *** *** ***"


class FakeRunner:
    def __init__(self, run: RunDir, redact: Any, echo: Any) -> None:
        self.redact = redact

    def prepare(self) -> None:
        self.prepared = True


@pytest.fixture
def fakes(run: RunDir, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    record: dict[str, Any] = {"stopped": []}
    _secrets(run, pool=True)
    monkeypatch.setattr(launcher, "up", lambda root, options, progress: run)
    monkeypatch.setattr(launcher, "stop", lambda r: record["stopped"].append(r))
    monkeypatch.setattr(sampler, "start_for_run", lambda r: None)
    monkeypatch.setattr(rally_runner, "RallyRunner", FakeRunner)
    return record


@pytest.mark.parametrize("db", ["sqlite", "mysql"])
def test_session_prepares_rally_and_stops(
    tmp_path: Path, run: RunDir, fakes, db: str
) -> None:
    options = LaunchOptions(db=db)
    with session.keystone_session(tmp_path, resolve(options), lambda m: None) as (
        got,
        runner,
    ):
        assert got == run
        assert runner.prepared  # Rally's setup in parallel on every database
        assert runner.redact("POOL-PW") == "***"
        assert fakes["stopped"] == []
    assert fakes["stopped"] == [run]


def test_session_stops_on_ctrl_c(tmp_path: Path, run: RunDir, fakes) -> None:
    with pytest.raises(KeyboardInterrupt):
        with session.keystone_session(tmp_path, resolve(LaunchOptions()), print):
            raise KeyboardInterrupt
    assert fakes["stopped"] == [run]


def test_session_keep_running(tmp_path: Path, run: RunDir, fakes) -> None:
    messages: list[str] = []
    options = LaunchOptions()
    with session.keystone_session(tmp_path, resolve(options), messages.append, True):
        pass
    assert fakes["stopped"] == []
    assert "rally-keystone-perf down --run" in messages[-1]
