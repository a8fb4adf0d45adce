"""Tests for rally_keystone_perf.run.session (Keystone + Rally for one block)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy import launcher, sampler
from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.layout.rundir import RunDir
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
        self.around_task = contextlib.nullcontext

    def prepare(self) -> None:
        self.prepared = True


@pytest.fixture
def fakes(run: RunDir, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    record: dict[str, Any] = {"stopped": [], "sampler": None, "paused": []}
    _secrets(run, pool=True)
    monkeypatch.setattr(launcher, "up", lambda root, options, progress: run)
    monkeypatch.setattr(launcher, "stop", lambda r: record["stopped"].append(r))

    def start_for_run(run: RunDir, paused: bool = False) -> Any:
        record["paused"].append(paused)
        return record["sampler"]

    monkeypatch.setattr(sampler, "start_for_run", start_for_run)
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


def test_a_side_idle_among_others_is_sampled_during_its_tasks_only(
    tmp_path: Path, run: RunDir, fakes, monkeypatch: pytest.MonkeyPatch
) -> None:
    resources = sampler.ResourceSampler([])
    fakes["sampler"] = resources
    options = resolve(LaunchOptions())
    with session.keystone_session(tmp_path, options, print) as (_, runner):
        assert runner.around_task is contextlib.nullcontext  # sampled throughout
    with session.keystone_session(tmp_path, options, print, sample_idle=False) as (
        _,
        runner,
    ):
        assert runner.around_task == resources.sampling
    assert fakes["paused"] == [False, True]
