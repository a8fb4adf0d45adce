"""Tests for rally_keystone_perf.cli (launcher and Rally faked: nothing starts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import cli, paths
from rally_keystone_perf.cli import common
from rally_keystone_perf.deploy import launcher, preflight, probes, services
from rally_keystone_perf.deploy.options import Deployment, LaunchError, LaunchOptions
from rally_keystone_perf.layout.rundir import RunDir, new_run_dir, write_private_json
from rally_keystone_perf.report import api
from rally_keystone_perf.run import rally_runner
from tests.unit.rally_fakes import task_document, write_task


def _outcome(code: int, interrupted: bool = False, report: Path | None = None):
    return rally_runner.TaskOutcome(Path("t.json"), "uuid", code, report, interrupted)


def _good_task(tmp_path: Path, name: str = "good.json") -> Path:
    return write_task(
        tmp_path,
        {
            "scenario": {"KeystonePerf.list_projects": {}},
            "runner": {"constant": {"times": 1}},
        },
        name=name,
    )


# --- parser ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], ["up", "down", "status", "run", "report", "130/143/129 stopped by"]),
        (
            ["up"],
            [
                "--mode",
                "--processes",
                "--threads",
                "--host",
                "--port",
                "--password-hash-rounds",
                "--token-expiration",
                "--start-timeout",
                "--runs-dir",
            ],
        ),
        (["down"], ["--run", "--runs-dir"]),
        (["status"], ["--run", "--runs-dir"]),
        (
            ["run"],
            ["--task", "--keep-running", "--processes", "--mode", "--runs-dir"],
        ),
        (["report"], ["RESULTS"]),
    ],
)
def test_help(capsys: pytest.CaptureFixture[str], argv: list[str], expected: list[str]):
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args([*argv, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: rally-keystone-perf")
    words = " ".join(out.split())  # argparse wraps long lines
    for text in expected:
        assert text in words


def test_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args([])
    assert exit_info.value.code == 1
    assert "required: COMMAND" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["up", "--processes", "0"],
        ["run", "--threads", "-1"],
        ["up", "--password-hash-rounds", "0"],
        ["up", "--token-expiration", "0"],
        ["up", "--processes", "two"],
        ["up", "--mode", "iis"],
        ["up", "--cache", "redis"],
        ["up", "--db", "postgres"],
        ["up", "--profile", "fast"],
        ["report"],
    ],
)
def test_bad_arguments_exit_1(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args(argv)
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "error:" in err
    if argv[-1] in ("0", "-1"):
        assert "must be at least 1" in err


def test_defaults() -> None:
    args = cli.build_parser().parse_args(["run"])
    assert args.task is None
    assert args.keep_running is False
    assert args.runs_dir == Path("runs")
    assert common.launch_options(args) == LaunchOptions()
    assert common.task_files(args) == [paths.tasks_dir() / "smoke.json"]


def test_launch_options_from_arguments() -> None:
    args = cli.build_parser().parse_args(
        [
            "up",
            "--processes",
            "4",
            "--threads",
            "3",
            "--host",
            "127.0.0.2",
            "--port",
            "5001",
            "--password-hash-rounds",
            "5",
            "--token-expiration",
            "120",
            "--token-provider",
            "jws",
            "--start-timeout",
            "9.5",
        ]
    )
    assert common.launch_options(args) == LaunchOptions(
        mode="uwsgi",
        host="127.0.0.2",
        port=5001,
        processes=4,
        threads=3,
        password_hash_rounds=5,
        token_expiration=120,
        token_provider="jws",
        start_timeout=9.5,
    )


def test_repeated_tasks() -> None:
    args = cli.build_parser().parse_args(["run", "--task", "a.json", "--task", "b"])
    assert common.task_files(args) == [Path("a.json"), Path("b")]


# --- helpers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("codes", "expected"),
    [
        ([], 0),
        ([0], 0),
        ([0, 0], 0),
        ([2], 2),
        ([0, 2], 2),
        ([2, 1], 1),
        ([1, 2, 0], 1),
        ([2, 130, 1], 130),
        ([130], 130),
        ([0, 7], 1),
        ([2, 7], 2),
    ],
)
def test_combined_exit(codes: list[int], expected: int) -> None:
    assert common.combined_exit(codes) == expected


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    err = captured.err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize(
    "content", ["{not json", "", '{"some": "other document"}', "[]"]
)
def test_report_bad_file(tmp_path: Path, capsys, content: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert cli.main(["report", str(bad)]) == 1
    line = _one_line_error(capsys)
    assert line.startswith(f"error: {bad}: ")
    assert capsys.readouterr().out == ""


def test_report_missing_file(tmp_path: Path, capsys) -> None:
    assert cli.main(["report", str(tmp_path / "missing.json")]) == 1
    assert "missing.json" in _one_line_error(capsys)


@pytest.mark.parametrize("command", ["status", "down"])
def test_no_run_folder(tmp_path: Path, capsys, command: str) -> None:
    assert cli.main([command, "--runs-dir", str(tmp_path)]) == 1
    assert _one_line_error(capsys) == (
        f"error: no run folder at {tmp_path / 'current'}; "
        "start one with: rally-keystone-perf up"
    )


def test_no_run_folder_given_by_run_option(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "nope"
    assert cli.main(["status", "--run", str(missing)]) == 1
    assert f"no run folder at {missing}" in _one_line_error(capsys)


@pytest.fixture
def no_launch(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []

    def up(*args: Any, **kwargs: Any) -> None:
        calls.append((args, kwargs))
        raise AssertionError("launcher.up must not be called")

    monkeypatch.setattr(launcher, "up", up)
    return calls


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"version": 2, "subtasks": [', "not valid JSON or YAML"),
        ("", "It is empty"),
        (
            json.dumps(
                task_document({"scenario": {"KeystonePerf.create_token": {"x": 1}}})
            ),
            "Unexpected argument(s) found ['x']",
        ),
    ],
)
def test_run_rejects_a_bad_task_before_starting(
    tmp_path: Path, capsys, no_launch: list[Any], content: str, expected: str
) -> None:
    task = tmp_path / "bad.json"
    task.write_text(content)
    runs = tmp_path / "runs"
    assert cli.main(["run", "--task", str(task), "--runs-dir", str(runs)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.startswith(f"error: {task}: ")
    assert expected in err
    assert no_launch == []
    assert not runs.exists()


def test_run_refuses_a_user_writer_on_ldap_before_starting(
    tmp_path: Path, capsys, no_launch: list[Any]
) -> None:
    task = write_task(
        tmp_path,
        {
            "scenario": {"KeystonePerf.create_delete_user": {}},
            "runner": {"constant": {"times": 1}},
        },
    )
    runs = tmp_path / "runs"
    argv = ["run", "--identity", "ldap", "--task", str(task), "--runs-dir", str(runs)]
    assert cli.main(argv) == 1
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.startswith(f"error: {task}: workload KeystonePerf.create_delete_user")
    assert "LDAP identity driver is read-only; run it with --identity sql" in error
    assert no_launch == []
    assert not runs.exists()


def test_run_checks_every_task_first(tmp_path: Path, capsys, no_launch) -> None:
    good = _good_task(tmp_path)
    missing = tmp_path / "missing.json"
    argv = ["run", "--task", str(good), "--task", str(missing)]
    assert cli.main([*argv, "--runs-dir", str(tmp_path / "runs")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"{good}: 1 workload(s), syntax OK"
    assert err[1].startswith(f"error: {missing}: cannot read the task file")
    assert no_launch == []


@pytest.mark.parametrize(
    "error",
    [
        LaunchError("uwsgi is not installed; install it with: x"),
        ValueError("unknown mode 'x' (known modes: uwsgi)"),
        rally_runner.RallyError("the rally command is not installed"),
    ],
    ids=["LaunchError", "ValueError", "RallyError"],
)
def test_known_errors_are_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path, error: Exception
) -> None:
    def up(*args: Any, **kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(launcher, "up", up)
    assert cli.main(["up", "--runs-dir", str(tmp_path)]) == 1
    assert _one_line_error(capsys) == f"error: {error}"


def test_keyboard_interrupt(monkeypatch: pytest.MonkeyPatch, capsys, tmp_path):
    def up(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(launcher, "up", up)
    assert cli.main(["up", "--runs-dir", str(tmp_path)]) == 130
    assert capsys.readouterr().err == "interrupted\n"


# --- main: commands ----------------------------------------------------------


def _fake_run(runs: Path, port: int = 5999) -> RunDir:
    runs.mkdir(parents=True, exist_ok=True)
    run = new_run_dir(runs, "uwsgi")
    run.write_state(
        status="running",
        mode="uwsgi",
        url=f"http://127.0.0.1:{port}",
        auth_url=f"http://127.0.0.1:{port}/v3",
        options={"processes": 2, "threads": 1, "password_hash_rounds": None},
    )
    write_private_json(run.admin_secret, {"username": "admin", "password": "PW"})
    return run


def test_up(monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path) -> None:
    seen: list[Any] = []

    def up(runs_root: Path, deployment: Deployment, progress: Any) -> RunDir:
        seen.append((runs_root, deployment.options))
        return _fake_run(runs_root)

    monkeypatch.setattr(launcher, "up", up)
    runs = tmp_path / "runs"
    assert cli.main(["up", "--runs-dir", str(runs), "--threads", "4"]) == 0
    assert seen == [(runs, LaunchOptions(threads=4))]
    out = capsys.readouterr().out
    run = (runs / "current").resolve()
    assert f"run folder: {run}\n" in out
    assert "auth url:   http://127.0.0.1:5999/v3\n" in out
    assert str(run / "private" / "rally-env.json") in out
    assert "PW" not in out


def test_status_not_running(tmp_path: Path, capsys) -> None:
    run = _fake_run(tmp_path)
    assert cli.main(["status", "--runs-dir", str(tmp_path)]) == 3
    out = capsys.readouterr().out
    assert f"run folder: {run.root}\n" in out
    assert "server:     not running\n" in out


def test_status_running(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _fake_run(tmp_path)
    run.write_state(server_pid=4242)
    monkeypatch.setattr(launcher, "is_running", lambda r: r.root == run.root)
    monkeypatch.setattr(probes, "probe", lambda url: 200)
    assert cli.main(["status", "--run", str(run.root)]) == 0
    out = capsys.readouterr().out
    assert "server:     running (pid 4242, GET /v3 -> 200)\n" in out


def test_status_prints_the_config_and_an_orphaned_driver(
    tmp_path: Path, capsys
) -> None:
    run = _fake_run(tmp_path)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    sleeper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    try:
        run.write_state(driver_pid=dead.pid, keystone_cache="request-local")
        services.record(run, "uwsgi", sleeper.pid)
        assert cli.main(["status", "--run", str(run.root)]) == 3
    finally:
        sleeper.kill()
        sleeper.wait()
    out = capsys.readouterr().out
    assert "{" not in out  # not a Python dict
    assert "config:     mode uwsgi, profile stock, processes 2, threads 1, " in out
    assert "cache request-local" in out
    assert (
        f"driver:     orphaned: started by pid {dead.pid}, which is gone; "
        "stop it with down\n"
    ) in out
    assert f"processes:  uwsgi (pid {sleeper.pid})\n" in out


def test_down(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _fake_run(tmp_path)
    stopped: list[Path] = []
    monkeypatch.setattr(launcher, "stop", lambda r: stopped.append(r.root) or True)
    assert cli.main(["down", "--runs-dir", str(tmp_path)]) == 0
    assert stopped == [run.root]
    assert capsys.readouterr().err == f"stopped the processes of {run.root}\n"


def test_down_nothing_running(tmp_path: Path, capsys) -> None:
    run = _fake_run(tmp_path)
    assert cli.main(["down", "--runs-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().err == f"no server was running for {run.root}\n"


class FakeRunner:
    """Stands in for RallyRunner; returns the outcomes it is given."""

    outcomes: list[Any] = []
    instances: list[FakeRunner] = []
    prepare_error: BaseException | None = None

    def __init__(self, run: RunDir, redact: Any, echo: Any) -> None:
        self.run = run
        self.redact = redact
        self.started: list[tuple[Path, list[str]]] = []
        FakeRunner.instances.append(self)

    def prepare(self) -> None:
        self.prepared = True
        if FakeRunner.prepare_error is not None:
            raise FakeRunner.prepare_error

    def start_task(self, task: Path, tags: Any = ()) -> Any:
        self.started.append((task, list(tags)))
        return FakeRunner.outcomes.pop(0)


@pytest.fixture
def fake_run_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``run`` with launcher, Rally and the report printing faked."""
    FakeRunner.outcomes = []
    FakeRunner.instances = []
    FakeRunner.prepare_error = None
    record: dict[str, Any] = {"stopped": [], "printed": []}

    def up(runs_root: Path, options: Any, progress: Any) -> RunDir:
        record["run"] = _fake_run(runs_root)
        return record["run"]

    monkeypatch.setattr(launcher, "up", up)
    monkeypatch.setattr(launcher, "stop", lambda run: record["stopped"].append(run))
    monkeypatch.setattr(rally_runner, "RallyRunner", FakeRunner)
    monkeypatch.setattr(
        api,
        "report",
        lambda files, stream, fmt: record["printed"].append(files),
    )
    return record


def _run_argv(tmp_path: Path, *tasks: Path) -> list[str]:
    argv = ["run", "--runs-dir", str(tmp_path / "runs")]
    for task in tasks:
        argv += ["--task", str(task)]
    return argv


def test_run(tmp_path: Path, fake_run_command: dict, capsys) -> None:
    a, b = _good_task(tmp_path, "a.json"), _good_task(tmp_path, "b.json")
    report = tmp_path / "a-report.json"
    FakeRunner.outcomes = [_outcome(0, report=report), _outcome(2)]
    assert cli.main(_run_argv(tmp_path, a, b)) == 2
    [runner] = FakeRunner.instances
    assert runner.started == [(a, ["mode:uwsgi"]), (b, ["mode:uwsgi"])]
    assert runner.redact("password PW") == "password ***"
    assert fake_run_command["stopped"] == [fake_run_command["run"]]
    assert fake_run_command["printed"] == [[report]]  # its run.json: its columns
    err = capsys.readouterr().err
    assert "stopped Keystone" in err
    assert f"results: {fake_run_command['run'].results}" in err


def test_run_interrupted_stops_after_that_task(
    tmp_path: Path, fake_run_command: dict
) -> None:
    a, b = _good_task(tmp_path, "a.json"), _good_task(tmp_path, "b.json")
    FakeRunner.outcomes = [_outcome(130, interrupted=True), _outcome(0)]
    assert cli.main(_run_argv(tmp_path, a, b)) == 130
    assert [t for t, _ in FakeRunner.instances[0].started] == [a]
    assert fake_run_command["stopped"] == [fake_run_command["run"]]
    assert fake_run_command["printed"] == []


def test_run_interrupted_while_preparing(
    tmp_path: Path, fake_run_command: dict, capsys
) -> None:
    FakeRunner.prepare_error = KeyboardInterrupt()
    assert cli.main(_run_argv(tmp_path, _good_task(tmp_path))) == 130
    assert FakeRunner.instances[0].started == []
    assert fake_run_command["stopped"] == [fake_run_command["run"]]
    assert "interrupted" in capsys.readouterr().err


def test_run_rally_error_still_stops(
    tmp_path: Path, fake_run_command: dict, capsys
) -> None:
    FakeRunner.prepare_error = rally_runner.RallyError("rally db create failed:\nx")
    assert cli.main(_run_argv(tmp_path, _good_task(tmp_path))) == 1
    assert fake_run_command["stopped"] == [fake_run_command["run"]]
    assert "error: rally db create failed:" in capsys.readouterr().err


def test_run_keep_running(tmp_path: Path, fake_run_command: dict, capsys) -> None:
    FakeRunner.outcomes = [_outcome(0)]
    argv = [*_run_argv(tmp_path, _good_task(tmp_path)), "--keep-running"]
    assert cli.main(argv) == 0
    assert fake_run_command["stopped"] == []
    run = fake_run_command["run"]
    err = capsys.readouterr().err
    assert f"rally-keystone-perf down --run {run.root}" in err


# --- report and compare ----------------------------------------------------------


def _two_runs(tmp_path: Path) -> tuple[Path, Path]:
    """Two run folders: p2xt1 around 0.5 s, p4xt1 around 1.0 s per token."""
    from tests.unit.report import runs as r

    fast = r.make_run(tmp_path, "fast", [r.workload(r.gauss(1, 0.5))], r.state())
    slow = r.make_run(
        tmp_path, "slow", [r.workload(r.gauss(2, 1.0))], r.state(processes=4)
    )
    return fast, slow


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], ["compare"]),
        (["report"], ["RESULTS", "--format", "--out", "markdown", "csv", "json"]),
        (["compare"], ["A", "B", "--alpha", "--format", "--out", "Mann-Whitney"]),
    ],
)
def test_help_of_report_and_compare(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: list[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args([*argv, "--help"])
    assert exit_info.value.code == 0
    words = " ".join(capsys.readouterr().out.split())
    for text in expected:
        assert text in words


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "a.json"],
        ["compare", "a.json", "b.json", "--alpha", "1.5"],
        ["compare", "a.json", "b.json", "--alpha", "0"],
        ["report", "a.json", "--format", "xml"],
    ],
)
def test_bad_report_and_compare_arguments_exit_1(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args(argv)
    assert exit_info.value.code == 1
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "json"])
def test_report_formats(tmp_path: Path, capsys, fmt: str) -> None:
    fast, slow = _two_runs(tmp_path)
    assert (
        cli.main(["report", str(fast), str(slow.parent.parent), "--format", fmt]) == 0
    )
    captured = capsys.readouterr()
    assert captured.err == ""
    out = captured.out
    if fmt == "json":
        document = json.loads(out)
        assert (document["schema"], document["version"]) == (
            "rally-keystone-perf/report",
            1,
        )
        assert [r["file"] for r in document["reports"]] == [str(fast), str(slow)]
    elif fmt == "csv":
        import csv
        import io

        rows = list(csv.DictReader(io.StringIO(out)))
        assert {row["processes"] for row in rows} == {"2", "4"}
    else:
        assert "keystone.create_token" in out
        assert "| throughput |" in out
        assert "concurrency" in out


def test_report_out_file(tmp_path: Path, capsys) -> None:
    fast, _ = _two_runs(tmp_path)
    out = tmp_path / "report.md"
    assert (
        cli.main(["report", str(fast), "--format", "markdown", "--out", str(out)]) == 0
    )
    assert capsys.readouterr().out == ""
    assert "| --- |" in out.read_text()


def test_report_out_unwritable(tmp_path: Path, capsys) -> None:
    fast, _ = _two_runs(tmp_path)
    target = tmp_path / "missing" / "out.json"
    assert cli.main(["report", str(fast), "--out", str(target)]) == 1
    assert _one_line_error(capsys).startswith(f"error: {target}: cannot write")


def test_print_reports_with_run_columns(tmp_path: Path) -> None:
    import io

    fast, _ = _two_runs(tmp_path)
    stream = io.StringIO()
    api.report([fast], stream, "table")
    assert "config: mode uwsgi, " in stream.getvalue()


def test_compare_end_to_end(tmp_path: Path, capsys) -> None:
    fast, slow = _two_runs(tmp_path)
    out = tmp_path / "compare.json"
    argv = ["compare", str(fast.parent.parent), str(slow), "--format", "json"]
    assert cli.main([*argv, "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    document = json.loads(out.read_text())
    assert (document["schema"], document["version"]) == (
        "rally-keystone-perf/compare",
        1,
    )
    assert document["baseline"] == "uwsgi p2xt1"
    results = document["comparisons"][0]["actions"][0]["results"]
    assert [x["verdict"] for x in results] == ["baseline", "slower"]
    assert cli.main(["compare", str(slow), str(fast)]) == 0
    table = capsys.readouterr().out
    assert "baseline: uwsgi p4xt1" in table
    assert "| faster" in table


def test_compare_same_run_is_not_significant(tmp_path: Path, capsys) -> None:
    fast, _ = _two_runs(tmp_path)
    assert cli.main(["compare", str(fast), str(fast), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "not significant" in out
    assert "slower" not in out and "faster" not in out


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        ('{"info": {"format_version": "1.2"}, "tasks": [', "truncated JSON"),
        ("{not json}", "malformed JSON"),
        ('{"info": {"format_version": "9.9"}, "tasks": []}', "unsupported"),
        ('{"info": {"format_version": "1.2"}}', "missing key 'tasks'"),
    ],
)
def test_compare_bad_file(tmp_path: Path, capsys, content: str, detail: str) -> None:
    fast, _ = _two_runs(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    for argv in (["compare", str(fast), str(bad)], ["report", str(bad)]):
        assert cli.main(argv) == 1
        line = _one_line_error(capsys)
        assert line.startswith(f"error: {bad}: ")
        assert detail in line
        assert capsys.readouterr().out == ""


def test_compare_empty_folder(tmp_path: Path, capsys) -> None:
    fast, _ = _two_runs(tmp_path)
    (tmp_path / "empty").mkdir()
    assert cli.main(["compare", str(fast), str(tmp_path / "empty")]) == 1
    assert "no Rally JSON reports" in _one_line_error(capsys)


# --- gate ----------------------------------------------------------------------


def test_gate_help(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args(["gate", "--help"])
    assert exit_info.value.code == 0
    words = " ".join(capsys.readouterr().out.split())
    for text in ("CURRENT", "--baseline", "--max-regression", "--junit", "UUID"):
        assert text in words


@pytest.mark.parametrize(
    ("text", "value"), [("10%", 0.10), ("25", 0.25), (" 0% ", 0.0), ("2.5%", 0.025)]
)
def test_max_regression_is_a_percentage(text: str, value: float) -> None:
    args = cli.build_parser().parse_args(
        ["gate", "a.json", "--baseline", "b.json", "--max-regression", text]
    )
    assert args.max_regression == pytest.approx(value)


@pytest.mark.parametrize(
    "argv",
    [
        ["gate", "a.json", "--baseline", "b.json", "--max-regression", "ten"],
        ["gate", "a.json", "--baseline", "b.json", "--max-regression", "-5%"],
        ["gate", "a.json", "--baseline", "b.json", "--format", "csv"],
    ],
)
def test_bad_gate_arguments_exit_1(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args(argv)
    assert exit_info.value.code == 1
    assert "error:" in capsys.readouterr().err


def test_gate_passes_fails_and_writes_junit(tmp_path: Path, capsys) -> None:
    fast, slow = _two_runs(tmp_path)
    junit = tmp_path / "junit.xml"
    argv = ["gate", str(fast), "--baseline", str(fast.parent.parent)]
    assert cli.main([*argv, "--junit", str(junit)]) == 0
    captured = capsys.readouterr()
    assert "| PASS" in captured.out and "FAIL" not in captured.out
    assert "gate PASSED" in captured.err
    assert 'failures="0"' in junit.read_text()

    argv = ["gate", str(slow), "--baseline", str(fast), "--junit", str(junit)]
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert "FAIL KeystonePerf.create_token c2: median keystone.create_token" in (
        captured.out
    )
    assert "gate FAILED" in captured.err
    assert 'failures="4"' in junit.read_text()
    # the other way round it is faster: a pass
    assert cli.main(["gate", str(fast), "--baseline", str(slow)]) == 0


def test_gate_exit_codes(tmp_path: Path, capsys) -> None:
    fast, slow = _two_runs(tmp_path)
    assert cli.main(["gate", str(slow), "--baseline", str(fast)]) == 2
    out = tmp_path / "gate.json"
    argv = ["gate", str(slow), "--baseline", str(fast), "--format", "json"]
    assert cli.main([*argv, "--out", str(out), "--max-regression", "200%"]) == 0
    assert json.loads(out.read_text())["passed"] is True
    capsys.readouterr()
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert cli.main(["gate", str(bad), "--baseline", str(fast)]) == 1
    assert _one_line_error(capsys).startswith(f"error: {bad}: truncated JSON")
    other = tmp_path / "missing.json"
    assert cli.main(["gate", str(fast), "--baseline", str(other)]) == 1
    assert "no such file or folder" in _one_line_error(capsys)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mode", "apache"], "apache2 is not installed; install it with: apt-get"),
        (["--mode", "nginx-uwsgi"], "nginx is not installed; install it with: apt-get"),
        (["--cache", "memcached"], "memcached is not installed; install it with: apt"),
        (["--db", "mysql"], "mariadbd is not installed; install it with: apt-get"),
        (
            ["--db", "postgresql"],
            "postgres is not installed; install it with: apt-get install postgresql",
        ),
        (
            ["--identity", "ldap"],
            "slapd is not installed; install it with: apt-get install slapd",
        ),
    ],
)
def test_up_without_a_system_package_names_it_and_starts_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.setattr(preflight, "SYSTEM_BIN_DIRS", ())
    monkeypatch.setattr(preflight.shutil, "which", lambda name, path=None: None)
    monkeypatch.setattr(preflight.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(paths, "venv_bin", lambda name: tmp_path / "bin" / name)
    (tmp_path / "bin").mkdir()
    for name in ("keystone-manage", "uwsgi"):  # the pip-installed parts exist
        (tmp_path / "bin" / name).write_text("#!/bin/sh\n")
        (tmp_path / "bin" / name).chmod(0o755)
    runs = tmp_path / "runs"
    assert cli.main(["up", *argv, "--runs-dir", str(runs)]) == 1
    assert message in _one_line_error(capsys)
    assert list(runs.iterdir()) == []  # no run folder, nothing started


# --- user pool and matrix ----------------------------------------------------


def _pooled_task(tmp_path: Path, name: str, tenants: int, per_tenant: int) -> Path:
    return write_task(
        tmp_path,
        {
            "scenario": {"KeystonePerf.create_token": {}},
            "runner": {"constant": {"times": 1}},
            "contexts": {
                "keystone_perf_users": {
                    "tenants": tenants,
                    "users_per_tenant": per_tenant,
                }
            },
        },
        name=name,
    )


def test_run_makes_a_user_pool_for_large_contexts(
    tmp_path: Path, fake_run_command: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(
        launcher,
        "up",
        lambda root, deployment, progress: (
            seen.append(deployment.options.user_pool) or _fake_run(root)
        ),
    )
    big = _pooled_task(tmp_path, "big.json", 12, 512)
    small = _pooled_task(tmp_path, "small.json", 4, 4)
    FakeRunner.outcomes = [_outcome(0), _outcome(0)]
    assert cli.main(_run_argv(tmp_path, small, big)) == 0
    FakeRunner.outcomes = [_outcome(0)]
    assert cli.main(_run_argv(tmp_path, small)) == 0
    FakeRunner.outcomes = [_outcome(0)]
    assert cli.main([*_run_argv(tmp_path, small), "--user-pool", "3x5"]) == 0
    FakeRunner.outcomes = [_outcome(0)]
    assert cli.main([*_run_argv(tmp_path, big), "--user-pool", "none"]) == 0
    FakeRunner.outcomes = [_outcome(0)]
    assert cli.main(_run_argv(tmp_path, _good_task(tmp_path))) == 0  # no context
    assert seen == [(12, 512), (4, 4), (3, 5), None, None]
    assert FakeRunner.instances[0].prepared


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--user-pool", "12"], "TENANTSxUSERS"),
        (["matrix", "--modes", "uwsgi,bogus"], "unknown mode(s) bogus"),
        (["matrix", "--size", "huge"], "invalid choice: 'huge'"),
    ],
)
def test_matrix_and_pool_usage_errors(argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 1
    assert message in capsys.readouterr().err


def test_matrix_rejects_a_bad_task_before_any_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from rally_keystone_perf import paths
    from rally_keystone_perf.run import matrix

    folder = tmp_path / "tasks" / "uwsgi"
    folder.mkdir(parents=True)
    (folder / "create-token-c4-quick.json").write_text('{"version": 2, "bad": 1}')
    monkeypatch.setattr(paths, "tasks_dir", lambda: tmp_path / "tasks")
    monkeypatch.setattr(
        matrix, "run_matrix", lambda *a, **k: pytest.fail("a server was started")
    )
    code = cli.main(
        ["matrix", "--modes", "uwsgi", "--runs-dir", str(tmp_path / "runs")]
    )
    assert code == 1
    assert "create-token-c4-quick.json" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        ("1,9", "--nodes 9: a cluster has 1 to 8 nodes"),
        ("1,x", "not node counts: '1,x'"),
    ],
)
def test_matrix_rejects_node_counts_before_any_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, nodes: str, message: str
) -> None:
    from rally_keystone_perf.run import matrix

    monkeypatch.setattr(
        matrix, "run_matrix", lambda *a, **k: pytest.fail("a server was started")
    )
    argv = ["matrix", "--modes", "uwsgi", "--nodes", nodes]
    try:
        code = cli.main([*argv, "--runs-dir", str(tmp_path / "runs")])
    except SystemExit as exc:  # argparse: a bad value is a usage error
        code = int(str(exc.code))
    assert code in (1, 2) and message in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_matrix_prints_the_combined_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from rally_keystone_perf.run import matrix
    from tests.unit.report import runs as r

    report_file = r.make_run(tmp_path, "one", [r.workload([0.5] * 6)], r.state())

    def fake_run_matrix(cells, state, options_for, echo, **kw):
        assert [c.key for c in cells] == [
            "uwsgi/create-token-c4-quick.json",
            "uwsgi/create-token-c16-quick.json",
            "uwsgi/create-token-c32-quick.json",
        ]
        assert options_for("uwsgi", 1).mode == "uwsgi"
        state.record(cells[0], status=matrix.DONE, report=str(report_file))
        raise KeyboardInterrupt

    monkeypatch.setattr(matrix, "run_matrix", fake_run_matrix)
    argv = ["matrix", "--modes", "uwsgi", "--runs-dir", str(tmp_path / "runs")]
    assert cli.main(argv) == 130
    out, err = capsys.readouterr()
    assert "setup (s)" in out and "load (s)" in out
    assert "1 of 3 cells done" in err and "run the same command again" in err
    assert (tmp_path / "runs" / "matrix-quick" / "combined.md").is_file()


# --- achieved concurrency (compare and gate) --------------------------------------


def _lanes(tmp_path: Path) -> tuple[Path, Path]:
    """Two runs at concurrency 4: one reached 4 in flight, the other 2."""
    from tests.unit.report import runs as r

    def run(name: str, slots: int) -> Path:
        workload = r.workload(r.gauss(slots, 0.5), concurrency=4, slots=slots)
        return r.make_run(tmp_path, name, [workload], r.state())

    return run("four", 4), run("two", 2)


@pytest.mark.parametrize("command", ["compare", "gate"])
def test_allow_concurrency_mismatch_help(command: str, capsys) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args([command, "--help"])
    words = " ".join(capsys.readouterr().out.split())
    assert "--allow-concurrency-mismatch compare a workload even when" in words
    assert "peak iterations in flight" in words


def test_gate_refuses_another_concurrency_with_exit_1(tmp_path: Path, capsys) -> None:
    four, two = _lanes(tmp_path)
    junit, out = tmp_path / "junit.xml", tmp_path / "gate.txt"
    argv = ["gate", str(two), "--baseline", str(four), "--junit", str(junit)]
    assert cli.main([*argv, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "gate ERROR: 1 workload not comparable" in err
    # the CI jobs publish both files: they carry the refusal
    assert (
        "ERROR KeystonePerf.create_token c4: achieved concurrency: not comparable: "
        "concurrency 2 vs 4"
    ) in out.read_text()
    assert 'errors="1"' in junit.read_text() and "<error " in junit.read_text()
    assert cli.main([*argv, "--allow-concurrency-mismatch"]) == 0
    assert "gate PASSED" in capsys.readouterr().err


def test_compare_marks_another_concurrency_not_comparable(
    tmp_path: Path, capsys
) -> None:
    four, two = _lanes(tmp_path)
    assert cli.main(["compare", str(four), str(two)]) == 0
    out = capsys.readouterr().out
    assert "not comparable: concurrency 2 vs 4" in out
    allow = "--allow-concurrency-mismatch"
    assert cli.main(["compare", str(four), str(two), allow]) == 0
    out = capsys.readouterr().out
    assert "compared anyway (--allow-concurrency-mismatch)" in out
    assert "| not comparable" not in out


@pytest.mark.parametrize("command", ["run", "matrix"])
def test_the_locust_engine_without_locust_is_refused_before_any_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, command: str
) -> None:
    from rally_keystone_perf.deploy import preflight
    from rally_keystone_perf.run import matrix, session

    real = preflight.importlib.util.find_spec
    monkeypatch.setattr(
        preflight.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "locust" else real(name, *a),
    )
    for module, name in ((matrix, "run_matrix"), (session, "keystone_session")):
        monkeypatch.setattr(
            module, name, lambda *a, **k: pytest.fail("a server was started")
        )
    argv = [command, "--engine", "locust", "--runs-dir", str(tmp_path / "runs")]
    if command == "matrix":
        argv += ["--modes", "uwsgi"]
    assert cli.main(argv) == 1
    assert "pip install 'rally-keystone-perf[locust]'" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_every_exit_code_has_its_meaning() -> None:
    from rally_keystone_perf.cli import common

    codes = [code for code, _ in common.EXIT_CODES]
    assert len(codes) == len(set(codes))
    named = {
        v
        for k, v in vars(common).items()
        if k.startswith("EXIT_") and k != "EXIT_CODES"
    }
    assert named <= set(codes)
    assert {129, 130, 143} <= set(codes)  # SIGHUP, Ctrl-C, SIGTERM (stop_signals)


def test_gate_needs_a_baseline_unless_it_gates_an_ab(tmp_path: Path, capsys) -> None:
    assert cli.main(["gate", str(tmp_path / "a.json")]) == 1
    assert "--baseline is needed unless CURRENT is an A/B folder" in (
        capsys.readouterr().err
    )
    from tests.unit.report.readers.test_ab_folder import make_ab

    folder = make_ab(tmp_path / "ab", rounds=6, slowdown=1.5)
    assert cli.main(["gate", str(folder), "--baseline", "x.json"]) == 1
    assert "drop --baseline" in capsys.readouterr().err
    junit = tmp_path / "junit.xml"
    code = cli.main(["gate", str(folder), "--junit", str(junit), "--format", "json"])
    assert code == 2
    out = capsys.readouterr()
    assert "side B gated against side A" in out.err
    assert '"median total"' in out.out and "FAIL" in out.out
    assert "<testsuites" in junit.read_text()
    same = make_ab(tmp_path / "aa", rounds=6, slowdown=1.0)
    assert cli.main(["gate", str(same)]) == 0
