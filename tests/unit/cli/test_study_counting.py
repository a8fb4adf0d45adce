"""``study --instructions``: what is counted, refused or skipped."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from rally_keystone_perf.cli import study_counting
from rally_keystone_perf.deploy.instructions import count
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.studies import seed000, seed001
from rally_keystone_perf.studies.model import Config
from rally_keystone_perf.tasks.model import TaskFile
from tests.unit.run.test_study_counts import CREATE, VALIDATE


class _Task:
    """A task file's workloads, as study_counting reads them."""

    def __init__(self, *workloads: dict) -> None:
        self._workloads = workloads

    def workloads(self) -> list[dict]:
        return list(self._workloads)


def _options(config: Config, tasks: Sequence[TaskFile]) -> LaunchOptions:
    options = LaunchOptions(mode=config.mode, **config.options)
    return dataclasses.replace(options, port=None)


def _tasks(*labels: str) -> dict:
    return {label: [_Task(CREATE, VALIDATE)] for label in labels}


def test_fernet_and_jws_are_counted_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(count, "valgrind", lambda: None)
    monkeypatch.setattr(study_counting.markers, "compiler", lambda: "gcc")
    tasks = _tasks("fernet-ldap", "fernet-sql", "jws-sql")
    plan = study_counting.prepare(None, seed001.STUDY, tasks, _options)
    assert plan is not None and list(plan.deployments) == ["fernet-sql", "jws-sql"]
    assert study_counting.prepare(False, seed001.STUDY, tasks, _options) is None


def test_no_valgrind_skips_unless_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    def missing() -> None:
        raise LaunchError("valgrind is not installed (apt-get install valgrind)")

    monkeypatch.setattr(count, "valgrind", missing)
    tasks = _tasks("fernet-sql", "jws-sql")
    assert study_counting.prepare(None, seed001.STUDY, tasks, _options) is None
    assert "instruction counts skipped: valgrind" in capsys.readouterr().err
    with pytest.raises(LaunchError, match="apt-get install valgrind"):
        study_counting.prepare(True, seed001.STUDY, tasks, _options)


def test_a_study_with_nothing_to_count_says_why_when_asked(
    capsys: pytest.CaptureFixture,
) -> None:
    tasks = {c.label: [_Task(CREATE)] for c in seed000.STUDY.configs}
    assert study_counting.prepare(None, seed000.STUDY, tasks, _options) is None
    assert capsys.readouterr().err == ""  # nobody asked: nothing to say
    with pytest.raises(LaunchError, match="no ratio of study 000") as found:
        study_counting.prepare(True, seed000.STUDY, tasks, _options)
    assert "4 workers vs 1: the configs differ by" in str(found.value)
