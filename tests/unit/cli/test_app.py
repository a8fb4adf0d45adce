"""Tests for rally_keystone_perf.cli.app: a command that starts a local
Keystone is refused on the core install, naming the extra, before anything
starts; the rest run."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf import cli, paths
from rally_keystone_perf.cli import (
    ab_commands,
    capacity_commands,
    deploy_commands,
    release_commands,
    run_commands,
    study_commands,
)
from rally_keystone_perf.deploy import extras

NEEDS_LOCAL = (
    "error: a local Keystone needs the local extra: "
    "pip install 'rally-keystone-perf[local]' (not installed: keystone, uwsgi)\n"
)
TASK = str(paths.tasks_dir() / "smoke.json")
# each launcher command, as a user types it, and the function it would call
LAUNCHERS = [
    (["up"], deploy_commands, "cmd_up"),
    (["run"], run_commands, "cmd_run"),
    (["matrix"], run_commands, "cmd_matrix"),
    (["study", "003"], study_commands, "cmd_study"),
    (["ab", "--b=--processes 1"], ab_commands, "cmd_ab"),
    (["ab", "--a=--os-cloud mine"], ab_commands, "cmd_ab"),  # B is local
    (["ab", "--instructions", "--rounds", "0"], ab_commands, "cmd_ab"),
    (["releases"], release_commands, "cmd_releases"),
    (
        ["capacity", "--task", TASK, "--slo", "p95<1s"],
        capacity_commands,
        "cmd_capacity",
    ),
]
# the same commands where nothing starts here: they go on to their function
NOT_LOCAL = [
    (["run", "--os-cloud", "mine"], run_commands, "cmd_run"),
    (["matrix", "--os-cloud", "mine"], run_commands, "cmd_matrix"),
    (["study", "--list"], study_commands, "cmd_study"),
    (["ab", "--a=--os-cloud one", "--b=--os-cloud two"], ab_commands, "cmd_ab"),
    (["ab", "--show", "ab-folder"], ab_commands, "cmd_ab"),
    (
        ["capacity", "--task", TASK, "--slo", "p95<1s", "--os-cloud", "mine"],
        capacity_commands,
        "cmd_capacity",
    ),
]


@pytest.fixture
def core_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """An install without the local extra (Keystone and uwsgi missing)."""
    missing = {"keystone", "uwsgi"}
    monkeypatch.setattr(extras, "_installed", lambda name: name not in missing)


def _record_calls(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list:
    calls: list = []
    monkeypatch.setattr(module, name, lambda args: calls.append(args) or 0)
    return calls


@pytest.mark.parametrize(("argv", "module", "name"), LAUNCHERS)
def test_a_launcher_command_is_refused_naming_the_extra(
    core_install: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    argv: list[str],
    module: object,
    name: str,
) -> None:
    calls = _record_calls(monkeypatch, module, name)
    assert cli.main([*argv, "--runs-dir", str(tmp_path / "runs")]) == 1
    captured = capsys.readouterr()
    assert captured.err == NEEDS_LOCAL  # one line, no traceback
    assert calls == []  # the command never ran
    assert not (tmp_path / "runs").exists()  # nothing made


@pytest.mark.parametrize(("argv", "module", "name"), NOT_LOCAL)
def test_a_command_that_starts_nothing_here_runs_on_the_core_install(
    core_install: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
    module: object,
    name: str,
) -> None:
    calls = _record_calls(monkeypatch, module, name)
    assert cli.main([*argv, "--runs-dir", str(tmp_path / "runs")]) == 0
    assert len(calls) == 1


def test_with_the_local_extra_a_launcher_command_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls = _record_calls(monkeypatch, run_commands, "cmd_run")
    assert cli.main(["run", "--runs-dir", str(tmp_path)]) == 0
    assert len(calls) == 1
