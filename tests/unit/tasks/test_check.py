"""Tests for rally_keystone_perf.tasks.check (syntax checks before anything starts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rally import plugins
from rally.task import scenario

from rally_keystone_perf import paths
from rally_keystone_perf.tasks.check import validate_task
from rally_keystone_perf.tasks.model import TaskFileError, load_document
from tests.unit.rally_fakes import task_document, workload

BUNDLED = sorted(paths.tasks_dir().glob("**/*.json"))


def _write(tmp_path: Path, content: Any, name: str = "task.json") -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def _error(path: Path, **kwargs: Any) -> str:
    with pytest.raises(TaskFileError) as err:
        validate_task(path, **kwargs)
    message = str(err.value)
    assert message.startswith(f"{path}: ")
    assert "\n" not in message.strip() or "Task config is invalid" in message
    return message


def test_bundled_tasks_exist() -> None:
    names = {str(p.relative_to(paths.tasks_dir())) for p in BUNDLED}
    assert names >= {
        "smoke.json",
        "gate-tokens.json",
        "uwsgi/create-token-c4-quick.json",
    }


@pytest.mark.parametrize(
    "task", BUNDLED, ids=[str(p.relative_to(paths.tasks_dir())) for p in BUNDLED]
)
def test_bundled_tasks_are_valid(task: Path) -> None:
    expected = sum(len(sub["workloads"]) for sub in load_document(task)["subtasks"])
    assert validate_task(task) == expected


# scenarios that need more than Keystone (boot_server: Nova) are not in smoke
NEEDS_MORE_THAN_KEYSTONE = {"KeystonePerf.boot_server"}
# sends the other scenarios' requests, in shares: tested by the functional
# scenarios' test (tests/functional/test_scenarios.py), not in the smoke task
NOT_IN_SMOKE = {"KeystonePerf.mix"}


def test_smoke_covers_every_scenario() -> None:
    plugins.load()
    smoke = json.loads((paths.tasks_dir() / "smoke.json").read_text())
    names = {
        name
        for sub in smoke["subtasks"]
        for wl in sub["workloads"]
        for name in wl["scenario"]
    }
    registered = {
        cls.get_name()
        for cls in scenario.Scenario.get_all(platform="openstack")
        if cls.get_name().startswith("KeystonePerf.")
    }
    assert registered >= {
        "KeystonePerf.create_token",
        "KeystonePerf.validate_token",
        "KeystonePerf.list_projects",
        "KeystonePerf.create_delete_user",
    }
    assert names == registered - NEEDS_MORE_THAN_KEYSTONE - NOT_IN_SMOKE


def test_good_task_counts_workloads(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        task_document(workload(), workload("KeystonePerf.create_token"), workload()),
    )
    assert validate_task(path) == 3


def test_yaml_task(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """\
version: 2
title: yaml
subtasks:
  - title: s
    workloads:
      - scenario: {KeystonePerf.create_token: {scope: unscoped}}
        runner: {constant: {times: 1, concurrency: 1}}
""",
        "task.yaml",
    )
    assert validate_task(path) == 1


def test_rally_v1_format(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {
            "KeystonePerf.create_token": [
                {"args": {}, "runner": {"type": "constant", "times": 1}}
            ]
        },
    )
    assert validate_task(path) == 1


def test_template_with_task_args(tmp_path: Path) -> None:
    text = json.dumps(task_document(workload())).replace(
        '"times": 2', '"times": {{ n }}'
    )
    path = _write(tmp_path, text)
    assert validate_task(path, {"n": 7}) == 1
    assert load_document(path, {"n": 7})["subtasks"][0]["workloads"][0]["runner"] == {
        "constant": {"times": 7, "concurrency": 1}
    }


def test_template_missing_arg(tmp_path: Path) -> None:
    text = json.dumps(task_document(workload())).replace(
        '"times": 2', '"times": {{ n }}'
    )
    message = _error(_write(tmp_path, text))
    assert str(tmp_path) in message
    assert "Please specify template task argument: n" in message


def test_template_default_filter(tmp_path: Path) -> None:
    text = json.dumps(task_document(workload())).replace(
        '"times": 2', '"times": {{ n | default(4) }}'
    )
    assert validate_task(_write(tmp_path, text)) == 1


def test_template_set_or_default_idiom(tmp_path: Path) -> None:
    from rally import api

    text = "{% set n = n or 3 %}\n" + json.dumps(task_document(workload())).replace(
        '"times": 2', '"times": {{ n }}'
    )
    # Rally itself renders this template without any task args
    rendered = api._Task.__new__(api._Task).render_template(
        task_template=text, template_dir=str(tmp_path)
    )
    assert '"times": 3' in rendered
    assert validate_task(_write(tmp_path, text)) == 1


def test_malformed_json(tmp_path: Path) -> None:
    message = _error(_write(tmp_path, '{"version": 2, "subtasks": ['))
    assert "not valid JSON or YAML" in message
    assert "line 1" in message


def test_empty_task(tmp_path: Path) -> None:
    message = _error(_write(tmp_path, ""))
    assert "Task config is invalid" in message
    assert "It is empty" in message


@pytest.mark.parametrize("content", ["[1, 2]", "just some words", "42"])
def test_task_not_a_mapping(tmp_path: Path, content: str) -> None:
    message = _error(_write(tmp_path, content))
    assert "It is not a dict" in message


def test_task_without_workloads(tmp_path: Path) -> None:
    message = _error(_write(tmp_path, {"version": 2, "title": "t", "subtasks": []}))
    assert message == f"{tmp_path / 'task.json'}: the task has no workloads"


def test_missing_subtasks(tmp_path: Path) -> None:
    message = _error(_write(tmp_path, {"version": 2, "title": "t"}))
    assert "'subtasks' is a required property" in message


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.json"
    message = _error(path)
    assert "cannot read the task file" in message
    assert "No such file or directory" in message


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (
            workload("KeystonePerf.nope"),
            "There is no Scenario plugin `KeystonePerf.nope`",
        ),
        (
            workload(runner={"constnt": {"times": 1}}),
            "There is no ScenarioRunner plugin `constnt`",
        ),
        (
            workload(runner={"constant": {"times": 1, "concurrency": 2}}),
            "check_constant",
        ),
        (
            workload(contexts={"no_such_ctx": {}}),
            "There is no Context plugin `no_such_ctx`",
        ),
        (
            workload(sla={"failure_rte": {"max": 0}}),
            "There is no SLA plugin `failure_rte`",
        ),
        (
            workload(contexts={"keystone_perf_tokens": {"foo": 1}}),
            "'foo' was unexpected",
        ),
    ],
)
def test_workload_errors(tmp_path: Path, bad: dict, expected: str) -> None:
    task = task_document(workload())
    task["subtasks"][0]["workloads"].append(bad)
    path = _write(tmp_path, task)
    message = _error(path)
    name = next(iter(bad["scenario"]))
    # the workload is named with its position in its subtask
    assert message.startswith(f"{path}: workload {name}[1]: ")
    assert expected in message
    assert "\n" not in message


def test_first_bad_workload_is_reported(tmp_path: Path) -> None:
    bad = workload(runner={"constnt": {"times": 1}})
    path = _write(tmp_path, task_document(bad, workload("KeystonePerf.nope")))
    assert "constnt" in _error(path)
