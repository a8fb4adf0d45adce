"""``up``'s output: what a user's own ``rally task start`` needs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.cli import deploy_commands
from rally_keystone_perf.client.tracing import CONTEXT_NAME
from rally_keystone_perf.deploy.tracing import profiler
from rally_keystone_perf.layout.rundir import RunDir


def _up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trace: str | None) -> RunDir:
    run = RunDir(tmp_path / "runs" / "20261124-000000-uwsgi")
    run.create()
    run.write_state(options={"trace": trace}, auth_url="http://127.0.0.1:5000")
    monkeypatch.setattr(deploy_commands.launcher, "up", lambda *a, **k: run)
    monkeypatch.setattr(deploy_commands.orphans, "detach", lambda r: None)
    argv = ["up", "--runs-dir", str(tmp_path / "runs")]
    assert cli.main([*argv, *(["--trace", trace] if trace else [])]) == 0
    return run


def test_up_with_trace_prints_the_context_to_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    run = _up(tmp_path, monkeypatch, "sample:0.25")
    (line,) = [x for x in capsys.readouterr().out.splitlines() if "tracing" in x]
    contexts = json.loads(line[line.index("{") :])
    assert contexts == {
        CONTEXT_NAME: {
            "sample": 0.25,
            "hmac_key_file": str(profiler.hmac_key_file(run)),
        }
    }


def test_up_without_trace_prints_no_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    _up(tmp_path, monkeypatch, None)
    assert "tracing" not in capsys.readouterr().out
