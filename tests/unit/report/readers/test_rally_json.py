"""Tests for rally_keystone_perf.report.readers.rally_json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rally.cli import task_results_loader

from rally_keystone_perf.report.readers.rally_json import (
    Iteration,
    ReportError,
    load_report,
)
from tests.unit.report import factory as f

NESTED = [
    f.atomic(
        "keystone_v3.create_project",
        10.0,
        10.3,
        children=[f.atomic("keystone_v3.list_roles", 10.1, 10.2)],
    )
]


def _sample_tasks() -> list[dict]:
    """Two tasks, the first with two subtasks, three workloads in all."""
    first = f.workload(
        [
            f.iteration(10.0, 0.4, 0.1, atomics=NESTED),
            f.iteration(10.5, 0.2, error=("KeystoneError", "boom")),
        ],
        args={"name_length": 10},
        runner={"times": 2, "concurrency": 1},
    )
    second = f.workload([], runner_type="rps", runner={"rps": 5, "times": 0})
    third = f.workload([f.iteration(20.0, 1.0)], position=1)
    return [
        f.task([[first], [second]]),
        f.task([[third]], uuid="task-2"),
    ]


@pytest.fixture
def report(tmp_path: Path) -> Path:
    """A valid report file written by Rally's JSON exporter."""
    return f.write_report(tmp_path / "report.json", _sample_tasks())


def _document(report: Path) -> dict:
    """The decoded JSON of ``report`` (to be broken by a test)."""
    return json.loads(report.read_text())


def test_fixture_is_accepted_by_rally_loader(report: Path) -> None:
    tasks = task_results_loader.load(str(report))
    assert len(tasks) == 2


def test_load_report_fields(report: Path) -> None:
    workloads = load_report(report)
    assert len(workloads) == 3
    first = workloads[0]
    assert first.task_uuid == "task-1"
    assert first.task_title == "keystone perf"
    assert first.tags == ["seed", "uwsgi"]
    assert first.scenario_name == f.SCENARIO
    assert first.scenario_args == {"name_length": 10}
    assert first.runner_type == "constant"
    assert first.runner == {"times": 2, "concurrency": 1}
    assert first.contexts == {"users": {"tenants": 1, "users_per_tenant": 1}}
    assert first.sla == {"failure_rate": {"max": 0}}
    assert first.pass_sla is True
    assert first.load_duration == 2.0
    assert first.full_duration == 3.0
    assert first.start_time == 10.0
    assert first.position == 0
    assert first.iterations[0] == Iteration(10.0, 0.4, 0.1, [], NESTED)
    assert first.iterations[1].error[:2] == ["KeystoneError", "boom"]


def test_load_report_flattens_in_file_order(report: Path) -> None:
    workloads = load_report(str(report))
    assert [(w.task_uuid, w.runner_type, w.position) for w in workloads] == [
        ("task-1", "constant", 0),
        ("task-1", "rps", 0),
        ("task-2", "constant", 1),
    ]
    assert workloads[1].iterations == []
    assert workloads[1].start_time is None


def _assert_error(path: Path, *fragments: str) -> None:
    """load_report must fail with a one-line message naming file and problem."""
    with pytest.raises(ReportError) as info:
        load_report(path)
    message = str(info.value)
    assert str(path) in message
    assert "\n" not in message
    assert "Traceback" not in message
    for fragment in fragments:
        assert fragment in message
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__


def test_malformed_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"info": {"format_version": "1.2"}, oops}')
    _assert_error(path, "malformed JSON", "line 1")


def test_truncated_file(report: Path) -> None:
    text = report.read_text()
    report.write_text(text[: len(text) // 2])
    _assert_error(report, "truncated JSON")


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_text("  \n")
    _assert_error(path, "empty file")


def test_missing_file(tmp_path: Path) -> None:
    _assert_error(tmp_path / "nope.json", "cannot read file")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    _assert_error(path, "UTF-8")


@pytest.mark.parametrize("version", ["1.1", "1.0", 1.2, None])
def test_wrong_format_version(report: Path, version: object) -> None:
    document = _document(report)
    document["info"]["format_version"] = version
    f.write_json(report, document)
    _assert_error(report, "unsupported format_version", repr(version), "'1.2'")


def test_old_list_format(tmp_path: Path) -> None:
    path = f.write_json(tmp_path / "old.json", [{"key": {}, "result": []}])
    _assert_error(path, "old Rally results format")


def test_missing_info(report: Path) -> None:
    document = _document(report)
    del document["info"]
    f.write_json(report, document)
    _assert_error(report, "missing key 'info' in report")


@pytest.mark.parametrize(
    ("path", "key", "expected"),
    [
        (("tasks", 0, "subtasks", 0, "workloads", 0), "data", "workloads[0]"),
        (("tasks", 0, "subtasks", 1, "workloads", 0), "runner", "subtasks[1]"),
        (("tasks", 1), "uuid", "missing key 'uuid' in tasks[1]"),
        (
            ("tasks", 0, "subtasks", 0, "workloads", 0, "data", 1),
            "idle_duration",
            "workloads[0].data[1]",
        ),
        (
            ("tasks", 0, "subtasks", 0, "workloads", 0, "data", 0),
            "atomic_actions",
            "data[0]",
        ),
    ],
)
def test_missing_key(
    report: Path, path: tuple[str | int, ...], key: str, expected: str
) -> None:
    document = _document(report)
    node = document
    for step in path:
        node = node[step]
    del node[key]
    f.write_json(report, document)
    _assert_error(report, f"missing key {key!r}", expected)


def test_missing_key_in_nested_atomic(report: Path) -> None:
    document = _document(report)
    data = document["tasks"][0]["subtasks"][0]["workloads"][0]["data"]
    del data[0]["atomic_actions"][0]["children"][0]["finished_at"]
    f.write_json(report, document)
    _assert_error(report, "missing key 'finished_at'", "atomic_actions[0].children[0]")


def test_wrong_types(report: Path) -> None:
    document = _document(report)
    workload = document["tasks"][0]["subtasks"][0]["workloads"][0]
    workload["data"][0]["duration"] = "0.4"
    f.write_json(report, document)
    _assert_error(report, "data[0].duration must be a number, got str")


def test_scenario_must_have_one_entry(report: Path) -> None:
    document = _document(report)
    document["tasks"][0]["subtasks"][0]["workloads"][0]["scenario"] = {}
    f.write_json(report, document)
    _assert_error(report, "scenario must have exactly one entry")


def test_tasks_not_a_list(report: Path) -> None:
    document = _document(report)
    document["tasks"] = {"oops": 1}
    f.write_json(report, document)
    _assert_error(report, "tasks must be a list, got dict")


def test_sla_results(report: Path) -> None:
    document = _document(report)
    workload = document["tasks"][0]["subtasks"][0]["workloads"][0]
    checked = {"criterion": "failure_rate", "success": False, "detail": "Failed"}
    workload["sla_results"] = {"sla": [checked]}
    f.write_json(report, document)
    assert load_report(report)[0].sla_results == [checked]
    del workload["sla_results"]  # older exports: nothing checked
    f.write_json(report, document)
    assert load_report(report)[0].sla_results == []


@pytest.mark.parametrize(
    ("sla_results", "fragment"),
    [
        ([], "sla_results must be an object"),
        ({"sla": {}}, "sla_results.sla must be a list"),
        ({"sla": [{"success": True}]}, "missing key 'criterion'"),
        ({"sla": [{"criterion": "x", "success": "yes"}]}, "success must be a boolean"),
        ({"sla": [{"criterion": "x", "success": True, "detail": 1}]}, "detail must"),
    ],
)
def test_bad_sla_results(report: Path, sla_results: object, fragment: str) -> None:
    document = _document(report)
    document["tasks"][0]["subtasks"][0]["workloads"][0]["sla_results"] = sla_results
    f.write_json(report, document)
    _assert_error(report, fragment)


def _context_result(name: str, setup: tuple, cleanup: tuple, error=None) -> dict:
    """One entry of Rally's ``contexts_results`` (format 1.1+)."""

    def phase(span: tuple, err: object = None) -> dict:
        started, finished = span
        return {
            "started_at": started,
            "finished_at": finished,
            "atomic_actions": [],
            "error": err,
        }

    return {
        "plugin_name": name,
        "plugin_cfg": {},
        "setup": phase(setup, error),
        "cleanup": phase(cleanup),
    }


def test_context_timings(tmp_path: Path) -> None:
    raw = f.workload([f.iteration(10.0, 0.4)])
    raw["contexts_results"] = [
        _context_result("users@openstack", (100.0, 112.5), (130.0, 131.0)),
        _context_result(
            "keystone_perf_tokens@openstack",
            (112.5, 113.0),
            (None, None),
            ["ContextSetupFailure", "no\n tokens", "Traceback SECRET"],
        ),
    ]
    (workload,) = load_report(f.write_report(tmp_path / "r.json", [f.task([[raw]])]))
    users, tokens = workload.context_timings
    assert (users.name, users.setup, users.cleanup) == ("users@openstack", 12.5, 1.0)
    assert users.error == ""
    assert (tokens.setup, tokens.cleanup) == (0.5, None)
    assert tokens.error == "setup: ContextSetupFailure: no tokens"
    assert workload.setup_duration == 13.0
    assert workload.cleanup_duration == 1.0


def test_no_context_timings(report: Path) -> None:
    workload = load_report(report)[0]
    assert workload.context_timings == []
    assert workload.setup_duration is None and workload.cleanup_duration is None


def test_bad_context_results(report: Path) -> None:
    document = _document(report)
    document["tasks"][0]["subtasks"][0]["workloads"][0]["contexts_results"] = [1]
    report.write_text(json.dumps(document))
    with pytest.raises(ReportError, match=r"contexts_results\[0\] is not a JSON"):
        load_report(report)
