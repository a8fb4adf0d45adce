"""Tests for rally_keystone_perf.report.figures.run_labels (columns, labels)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.layout.rundir import RunState
from rally_keystone_perf.report.figures import run_labels
from rally_keystone_perf.report.readers import run_folder
from rally_keystone_perf.report.readers.rally_json import ReportError, load_report
from tests.unit.report import factory as f
from tests.unit.report import runs as r

RUN_COLUMNS = {
    "mode": "uwsgi",
    "profile": "stock",
    "processes": "4",
    "threads": "2",
    "cache": "request-local",
    "db": "sqlite",
    "hash rounds": "default",
}


def test_config_columns() -> None:
    assert run_labels.config_columns(
        RunState.from_json(r.state(processes=4, threads=2, rounds=4))
    ) == {
        "mode": "uwsgi",
        "profile": "stock",
        "processes": "4",
        "threads": "2",
        "db": "sqlite",
        "hash rounds": "4",
    }


def test_config_for_reads_run_json(tmp_path: Path) -> None:
    report = r.make_run(
        tmp_path, "run", [r.workload([0.1] * 3, concurrency=8)], r.state("uwsgi", 4, 2)
    )
    (workload,) = load_report(report)
    assert run_labels.config_for(report) == RUN_COLUMNS
    assert run_labels.config_for(report, workload) == {
        **RUN_COLUMNS,
        "concurrency": "8",
        "times": "3",
    }
    assert list(run_labels.config_for(report, workload)) == r.CONFIG_KEYS


def test_config_for_cache_option(tmp_path: Path) -> None:
    state = r.state()
    del state["keystone_cache"]
    state["options"]["cache"] = True
    report = r.make_run(tmp_path, "run", [r.workload([0.1])], state)
    assert run_labels.config_for(report)["cache"] == "on"


@pytest.mark.parametrize(
    ("keystone_cache", "option", "column"),
    [
        ("request-local", "none", "request-local"),
        ("memcached", "memcached", "memcached"),
        ("disabled", "disabled", "disabled"),
        # run.json written before keystone_cache: --cache none was rendered
        # as [cache] enabled = false
        (None, "none", "disabled"),
        (None, "memcached", "memcached"),
    ],
)
def test_cache_column_names_what_was_rendered(
    tmp_path: Path, keystone_cache: str | None, option: str, column: str
) -> None:
    state = r.state()
    state.pop("keystone_cache")
    if keystone_cache is not None:
        state["keystone_cache"] = keystone_cache
    state["options"]["cache"] = option
    report = r.make_run(tmp_path, "run", [r.workload([0.1])], state)
    assert run_labels.config_for(report)["cache"] == column


def test_config_from_tags_without_run_json(tmp_path: Path) -> None:
    tags = ["mode:uwsgi", "processes: 4", "seed", "broken:"]
    report = r.make_run(
        tmp_path, "run", [r.workload([0.1] * 2, concurrency=None)], None, tags=tags
    )
    (workload,) = load_report(report)
    assert run_labels.config_for(report, workload) == {
        "mode": "uwsgi",
        "processes": "4",
        "times": "2",
    }


def test_serial_runner_columns(tmp_path: Path) -> None:
    serial = f.workload(r.timed([0.1] * 3), runner_type="serial", runner={"times": 3})
    duration = f.workload(
        r.timed([0.1] * 3),
        runner_type="constant_for_duration",
        runner={"duration": 20, "concurrency": 8},
        position=1,
    )
    report = r.make_run(tmp_path, "run", [serial, duration], r.state())
    first, second = load_report(report)
    # serial runs one iteration at a time: concurrency 1, though it has none
    assert run_labels.runner_columns(first) == {"concurrency": "1", "times": "3"}
    assert run_labels.runner_columns(second) == {"concurrency": "8"}


def test_config_from_file_name(tmp_path: Path) -> None:
    report = r.make_run(tmp_path, "run", [r.workload([0.1])], None, tags=["seed"])
    (workload,) = load_report(report)
    assert run_labels.config_for(report, workload) == {
        "file": report.name,
        "concurrency": "2",
        "times": "1",
    }


@pytest.mark.parametrize("content", ["{broken", "[1, 2]", '{"options": 3}'])
def test_bad_run_json(tmp_path: Path, content: str) -> None:
    report = r.make_run(tmp_path, "run", [r.workload([0.1])], r.state())
    (tmp_path / "run" / "run.json").write_text(content)
    with pytest.raises(ReportError) as info:
        run_labels.config_for(report)
    message = str(info.value)
    assert message.startswith(f"{tmp_path / 'run' / 'run.json'}: ")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("columns", "label"),
    [
        (RUN_COLUMNS, "uwsgi p4xt2"),
        ({**RUN_COLUMNS, "hash rounds": "4"}, "uwsgi p4xt2 hash rounds 4"),
        (
            {**RUN_COLUMNS, "cache": "memcached", "db": "mysql"},
            "uwsgi p4xt2 cache memcached db mysql",
        ),
        (run_labels.config_columns(RunState()), "x.json"),
        ({"mode": "uwsgi"}, "uwsgi"),
        ({"file": "x.json"}, "x.json"),
    ],
)
def test_run_label(columns: dict[str, str], label: str) -> None:
    assert run_labels.run_label(columns, "x.json") == label


def test_unique_labels() -> None:
    paths = [Path("a/one.json"), Path("b/two.json"), Path("c/three.json")]
    assert run_labels.unique_labels(["x", "y", "x"], paths) == [
        "x (one.json)",
        "y",
        "x (three.json)",
    ]
    same_names = [Path("a/r.json"), Path("b/r.json")]
    assert run_labels.unique_labels(["x", "x"], same_names) == [
        "x (a/r.json)",
        "x (b/r.json)",
    ]
    twice = [Path("a/r.json")] * 3
    assert run_labels.unique_labels(["x", "x", "x"], twice) == [
        "x (a/r.json)",
        "x (a/r.json) #2",
        "x (a/r.json) #3",
    ]


def test_load_runs_labels_and_folders(tmp_path: Path) -> None:
    one = r.make_run(tmp_path, "one", [r.workload([0.1])], r.state(processes=2))
    r.make_run(tmp_path, "one", [r.workload([0.2])], None, report="z-second.json")
    two = r.make_run(tmp_path, "two", [r.workload([0.1])], r.state(processes=4))
    three = r.make_run(tmp_path, "three", [r.workload([0.1])], r.state(processes=2))
    runs = run_labels.load_runs([tmp_path / "one", two, three.parent])
    assert [run.label for run in runs] == [
        "uwsgi p2xt1 (one)",
        "uwsgi p4xt1",
        "uwsgi p2xt1 (three)",
    ]
    bases = ["uwsgi p2xt1", "uwsgi p4xt1", "uwsgi p2xt1"]
    assert [run.config_label for run in runs] == bases
    assert runs[0].paths == [one, tmp_path / "one" / "results" / "z-second.json"]
    assert len(runs[0].workloads) == 2
    assert runs[1].config["processes"] == "4"


def test_empty_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no Rally JSON reports"):
        run_folder.report_files(tmp_path)


def test_a_report_reached_twice_is_loaded_once(tmp_path: Path) -> None:
    report = r.make_run(tmp_path, "20261124-133418-uwsgi", [r.workload([0.1])])
    (tmp_path / "current").symlink_to(tmp_path / "20261124-133418-uwsgi")
    given = [tmp_path / "20261124-133418-uwsgi", tmp_path / "current", report]
    (loaded,) = run_labels.load_reports(given)  # as `report runs/*/ ...` gives them
    assert loaded.path == report


def test_the_token_provider_column_of_new_runs() -> None:
    old = RunState.from_json({"mode": "uwsgi", "options": {"processes": 2}})
    assert "tokens" not in run_labels.config_columns(old)
    new = RunState.from_json({"mode": "uwsgi", "options": {"token_provider": "jws"}})
    assert run_labels.config_columns(new)["tokens"] == "jws"
    fernet = {**run_labels.config_columns(new), "tokens": "fernet"}
    assert "fernet" not in run_labels.run_label(fernet, "x.json")
    assert "tokens jws" in run_labels.run_label(
        run_labels.config_columns(new), "x.json"
    )


def test_the_identity_column_of_new_runs() -> None:
    old = RunState.from_json({"mode": "uwsgi", "options": {"processes": 2}})
    assert "identity" not in run_labels.config_columns(old)
    new = RunState.from_json({"mode": "uwsgi", "options": {"identity": "ldap"}})
    assert run_labels.config_columns(new)["identity"] == "ldap"
    assert "identity ldap" in run_labels.run_label(
        run_labels.config_columns(new), "x.json"
    )
    sql = {**run_labels.config_columns(new), "identity": "sql"}
    assert "sql" not in run_labels.run_label(sql, "x.json")


def test_config_columns_of_a_run_state() -> None:
    state = {
        "mode": "uwsgi",
        "options": {"processes": 4, "threads": 2, "password_hash_rounds": None},
    }
    assert run_labels.config_columns(RunState.from_json(state)) == {
        "mode": "uwsgi",
        "profile": "stock",
        "processes": "4",
        "threads": "2",
        "db": "sqlite",
        "hash rounds": "default",
    }
    state["options"]["password_hash_rounds"] = 4
    assert run_labels.config_columns(RunState.from_json(state))["hash rounds"] == "4"


def test_config_columns_of_an_empty_state() -> None:
    assert run_labels.config_columns(RunState()) == {
        "mode": "?",
        "profile": "stock",
        "processes": "?",
        "threads": "?",
        "db": "sqlite",
        "hash rounds": "default",
    }


@pytest.mark.parametrize(
    ("quota", "columns"),
    [
        (None, {}),
        (
            {"version": "v2", "node": 0.5, "db": None},
            {"node cpus": "0.5", "db cpus": "-"},
        ),
        ({"version": "v1", "node": None, "db": 2}, {"node cpus": "-", "db cpus": "2"}),
    ],
)
def test_the_cpu_quota_columns(quota: dict | None, columns: dict[str, str]) -> None:
    state = r.state() | {"cpu_quota": quota}
    state["options"] |= {"nodes": 3, "lb_balance": "leastconn"}
    found = run_labels.config_columns(RunState.from_json(state))
    assert list(found)[-2 - len(columns) :] == ["nodes", "balance", *columns]
    assert {key: found[key] for key in columns} == columns
    assert (found["nodes"], found["balance"]) == ("3", "leastconn")


def test_a_single_host_shows_no_nodes_but_implies_one() -> None:
    state = r.state() | {"options": {**r.state()["options"], "nodes": 1}}
    columns = run_labels.config_columns(RunState.from_json(state))
    assert "nodes" not in columns and "balance" not in columns
    assert run_labels.column(columns, "nodes", "-") == "1"
    assert run_labels.column(columns, "balance", "-") == "-"
    assert run_labels.column({"mode": "uwsgi"}, "nodes", "-") == "1"  # a mode: tag
    assert run_labels.column({"file": "x.json"}, "nodes", "-") == "-"  # not ours
    assert run_labels.column({"mode": "?", "nodes": "4"}, "nodes", "-") == "4"


# --- main: errors ------------------------------------------------------------


# --- --os-cloud: someone else's Keystone -------------------------------------

TARGET = {"auth_url": "https://keystone.test:5000", "api_version": "v3.14"}


def test_target_columns() -> None:
    assert run_labels.target_columns(TARGET) == {
        "target": "https://keystone.test:5000 (external)",
        "api": "v3.14",
        "server side": "not measured",
    }


def test_target_columns_of_an_empty_record() -> None:
    columns = run_labels.target_columns({})
    assert (columns["target"], columns["api"]) == ("? (external)", "?")


def test_config_columns_of_a_run_against_a_cloud() -> None:
    state = RunState.from_json({"status": "running", "target": TARGET})
    assert run_labels.config_columns(state) == run_labels.target_columns(TARGET)


def test_run_label_of_a_cloud_is_its_url() -> None:
    columns = run_labels.target_columns(TARGET)
    assert run_labels.run_label(columns, "x.json") == "https://keystone.test:5000"


def test_target_columns_with_a_server_log() -> None:
    columns = run_labels.target_columns(TARGET, {"offset": -0.46, "kept": 20})
    assert columns == {
        "target": "https://keystone.test:5000 (external)",
        "api": "v3.14",
        "server side": "from its log, clock -0.5 s",
    }
    hour = run_labels.target_columns(TARGET, {"offset": 3600.24})
    assert hour["server side"] == "from its log, clock +3600.2 s"


def test_target_columns_of_a_server_log_without_an_offset() -> None:
    assert run_labels.target_columns(TARGET, {"kept": 3})["server side"] == (
        "from its log, clock +0.0 s"
    )
    # none recorded, or an empty record: the server side was not measured
    assert run_labels.target_columns(TARGET, None)["server side"] == "not measured"
    assert run_labels.target_columns(TARGET, {})["server side"] == "not measured"


def test_config_columns_of_a_cloud_run_with_its_server_log() -> None:
    state = RunState.from_json(
        {
            "status": "finished",
            "target": TARGET,
            "target_server_log": {"offset": -0.5, "kept": 20, "other_clients": 3},
        }
    )
    assert run_labels.config_columns(state)["server side"] == (
        "from its log, clock -0.5 s"
    )


def test_the_wsgi_column_and_warning_of_a_stock_app() -> None:
    suite = RunState.from_json({"mode": "uwsgi", "options": {"wsgi": "suite"}})
    assert "wsgi" not in run_labels.config_columns(suite)
    stock = RunState.from_json({"mode": "uwsgi", "options": {"wsgi": "stock"}})
    columns = run_labels.config_columns(stock)
    assert columns["wsgi"] == "stock"
    (warning,) = run_labels.config_warnings(columns)
    assert "database is locked" in warning and "Keystone's own" in warning
    mysql = {**columns, "db": "mysql"}
    assert run_labels.config_warnings(mysql) == []
