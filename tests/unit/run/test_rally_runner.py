"""Tests for rally_keystone_perf.run.rally_runner (with a fake ``rally`` executable)."""

from __future__ import annotations

import contextlib
import json
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rally.cli import cliutils

from rally_keystone_perf import paths
from rally_keystone_perf.client import lean_http
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import rally_runner
from rally_keystone_perf.run.rally_runner import (
    RallyError,
    RallyRunner,
    Redactor,
    _ProgressWatcher,
)

UUID = "58289582-3128-4858-8217-9628a4e4e333"
OTHER_UUID = "11111111-2222-3333-4444-555555555555"
SECRET = "hunter2-admin-password"
PREFIX = "2024-05-01 10:00:00.123 4242 INFO rally.task.runner [-] "

FAKE_RALLY = f"""\
#!{sys.executable}
import json, os, sys
args = sys.argv[3:]  # after --config-file FILE
with open(os.environ["FAKE_RECORD"], "a") as record:
    record.write(json.dumps(sys.argv[1:]) + "\\n")
if os.environ.get("FAKE_FAIL") == " ".join(args[:2]):
    print("\\n".join(f"noise {{i}}" for i in range(20)))
    print("Error: cannot connect as admin with password {SECRET}", file=sys.stderr)
    sys.exit(1)
if args[:2] == ["task", "start"]:
    with open(os.environ["FAKE_OUTPUT"]) as out:
        sys.stdout.write(out.read())
    sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
if args[:2] == ["task", "report"]:
    with open(args[args.index("--out") + 1], "w") as out:
        json.dump({{"uuid": args[2]}}, out)
"""


def _header(uuid: str, tags: list[str] | None = None) -> str:
    """The header ``rally task start`` prints (rally/cli/commands/task.py)."""
    tag_text = "[tags: '{}']".format("', '".join(tags)) if tags else ""
    return cliutils.make_header(f"Task {tag_text} {uuid}: started")


def _iter_end(n: int, ok: bool = True) -> str:
    status = "OK" if ok else "Error KeystoneError: boom"
    return f"{PREFIX}Task {UUID} | ITER: {n} END: {status}"


# --- Redactor --------------------------------------------------------------


def test_redactor_replaces_every_occurrence() -> None:
    redact = Redactor(["s3cret"])
    assert redact("a s3cret and s3cret again") == "a *** and *** again"


def test_redactor_longest_first() -> None:
    redact = Redactor(["abc", "abcdef"])
    assert redact("token=abcdef; short=abc") == "token=***; short=***"


def test_redactor_ignores_empty_secrets() -> None:
    redact = Redactor(["", None, "x1"])  # type: ignore[list-item]
    assert redact("ax1b") == "a***b"
    assert Redactor([])("nothing to hide") == "nothing to hide"


# --- _ProgressWatcher ------------------------------------------------------


def _feed(text: str, watcher: _ProgressWatcher) -> None:
    for line in text.splitlines():
        watcher.feed(line)


@pytest.fixture
def echoed() -> list[str]:
    return []


def test_header_with_tags(echoed: list[str]) -> None:
    watcher = _ProgressWatcher(echoed.append)
    _feed(_header(UUID, ["mode:uwsgi", "x"]), watcher)
    assert watcher.uuid == UUID
    assert echoed == [f"rally task {UUID} started"]


def test_header_without_tags(echoed: list[str]) -> None:
    header = _header(UUID)
    assert f"Task  {UUID}: started" in header
    watcher = _ProgressWatcher(echoed.append)
    _feed(header, watcher)
    assert watcher.uuid == UUID
    assert echoed == [f"rally task {UUID} started"]


def test_first_uuid_wins(echoed: list[str]) -> None:
    watcher = _ProgressWatcher(echoed.append)
    _feed(_header(UUID, ["a"]) + _header(OTHER_UUID, ["b"]), watcher)
    assert watcher.uuid == UUID
    assert echoed == [f"rally task {UUID} started"]


def test_iteration_counting(echoed: list[str]) -> None:
    watcher = _ProgressWatcher(echoed.append)
    for n in range(1, 51):
        watcher.feed(_iter_end(n, ok=n not in (3, 30, 31)))
    assert (watcher.done, watcher.failed) == (50, 3)
    assert echoed == [
        "  25 iterations done (1 failed)",
        "  50 iterations done (3 failed)",
    ]


def test_batches_of_the_locust_runner_are_counted(echoed: list[str]) -> None:
    watcher = _ProgressWatcher(echoed.append)
    for done, failed in ((10, 0), (20, 1), (3, 0), (40, 2)):
        line = f"{PREFIX}Task {UUID} | ITERATIONS: {done} END: {failed} failed"
        watcher.feed(line)
    assert (watcher.done, watcher.failed) == (73, 3)
    assert echoed == [  # once per 25 crossed
        "  30 iterations done (1 failed)",
        "  73 iterations done (3 failed)",
    ]


def test_iteration_start_lines_are_not_counted(echoed: list[str]) -> None:
    watcher = _ProgressWatcher(echoed.append)
    watcher.feed(f"{PREFIX}Task {UUID} | ITER: 1 START")
    assert (watcher.done, watcher.failed) == (0, 0)
    assert echoed == []


def _running_workload(runner: dict) -> str:
    """Rally's engine's message (rally/task/engine.py), as its log prints it."""
    config = {
        "version": 2,
        "title": "A cropped version of a bigger task.",
        "subtasks": [
            {
                "title": "KeystonePerf.create_token",
                "scenario": {"KeystonePerf.create_token": {}},
                "contexts": {"users": {"tenants": 1}},
                "runner": runner,
                "hooks": [],
            }
        ],
    }
    return (
        f"{PREFIX}Running workload: \n  position = 0\n"
        f"  config = {json.dumps(config, indent=3)}"
    )


def test_running_workload_resets_the_counters_and_names_it(
    echoed: list[str],
) -> None:
    watcher = _ProgressWatcher(echoed.append)
    for n in range(1, 5):
        watcher.feed(_iter_end(n, ok=False))
    runner = {"constant": {"times": 100, "concurrency": 4}}
    _feed(_running_workload(runner), watcher)
    assert (watcher.done, watcher.failed) == (0, 0)
    assert echoed == [
        "  Running workload: KeystonePerf.create_token (constant, times 100, "
        "concurrency 4)"
    ]
    watcher.feed(_iter_end(1, ok=True))
    assert watcher.done == 1


def test_a_workload_whose_config_is_cut_short_is_still_announced(
    echoed: list[str],
) -> None:
    watcher = _ProgressWatcher(echoed.append)
    text = _running_workload({"rps": {"times": 10, "rps": 5}})
    _feed("\n".join(text.splitlines()[:6]), watcher)  # no closing brace
    watcher.feed(_iter_end(1, ok=True))
    assert echoed == ["  Running workload: (name not logged)"]
    assert watcher.done == 1


@pytest.mark.parametrize(
    "message",
    [
        f"Task {UUID} | Context users@openstack setup()  finished in 1.2 sec",
        f"Task {UUID} | Context users@openstack cleanup() finished in 0.3 sec",
        "Load duration is: 1.234567",
        "Finished workload 1/4",
        "Task validation of syntax.",
        "ERROR rally.task.engine something broke",
    ],
)
def test_shown_lines(echoed: list[str], message: str) -> None:
    watcher = _ProgressWatcher(echoed.append)
    watcher.feed(PREFIX + message)
    assert echoed == [f"  {message}"]


@pytest.mark.parametrize(
    "line",
    [
        "Running Task... This can take a while...",
        "\trally task status",
        f"{PREFIX}Task {UUID} | Context users@openstack setup() ",
        "-" * 80,
        "",
    ],
)
def test_other_lines_are_quiet(echoed: list[str], line: str) -> None:
    watcher = _ProgressWatcher(echoed.append)
    watcher.feed(line)
    assert echoed == []
    assert watcher.uuid is None


# --- RallyRunner -----------------------------------------------------------


@pytest.fixture
def fake_rally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    rally = bin_dir / "rally"
    rally.write_text(FAKE_RALLY)
    rally.chmod(0o755)
    files = {
        "rally": rally,
        "record": tmp_path / "calls.jsonl",
        "output": tmp_path / "output.txt",
    }
    monkeypatch.setattr(paths, "venv_bin", lambda name: bin_dir / name)
    monkeypatch.setenv("FAKE_RECORD", str(files["record"]))
    monkeypatch.setenv("FAKE_OUTPUT", str(files["output"]))
    for name in ("FAKE_FAIL", "FAKE_EXIT"):
        monkeypatch.delenv(name, raising=False)
    return files


@pytest.fixture
def runner(run: RunDir, fake_rally: dict[str, Path], echoed: list[str]) -> RallyRunner:
    return RallyRunner(run, Redactor([SECRET]), echoed.append)


def _calls(record: Path) -> list[list[str]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines()]


def test_rally_not_installed(
    run: RunDir, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paths, "venv_bin", lambda name: tmp_path / "none" / name)
    with pytest.raises(RallyError, match="pip install rally"):
        RallyRunner(run, Redactor([]), print)


def test_prepare(runner: RallyRunner, run: RunDir, fake_rally: dict) -> None:
    """Rally's own database and env, in one process (an OpenStack platform:
    Rally stores its credentials, it does not connect until a task runs)."""
    admin = {"username": "admin", "password": SECRET, "project_name": "admin"}
    spec = {"existing@openstack": {"auth_url": "http://127.0.0.1:9/v3", "admin": admin}}
    run.env_spec.write_text(json.dumps(spec))
    runner.prepare()
    config = run.private / "rally.conf"
    assert config.read_text() == (
        f"[database]\nconnection = sqlite:///{run.private / 'rally.sqlite'}\n"
    )
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert stat.S_IMODE((run.private / "rally.sqlite").stat().st_mode) == 0o600
    assert _calls(fake_rally["record"]) == []  # no rally command
    log = (run.logs / "rally.log").read_text()
    assert "$ rally db create\n" in log
    assert re.search(rf"env {rally_runner.ENV_NAME} \([0-9a-f-]+\): READY", log)
    assert "platform existing@openstack: READY" in log
    assert SECRET not in log


def test_prepare_reuses_an_existing_database(
    runner: RallyRunner, run: RunDir, fake_rally: dict
) -> None:
    (run.private / "rally.sqlite").write_text("")
    runner.prepare()
    assert _calls(fake_rally["record"]) == []
    assert (run.private / "rally.conf").is_file()


def test_failed_setup_is_redacted(runner: RallyRunner, run: RunDir) -> None:
    """A spec Rally refuses: exit 1, its error in the log, the secret not."""
    spec = {"existing@openstack": {"admin": {"password": SECRET}, "bogus": 1}}
    run.env_spec.write_text(json.dumps(spec))
    with pytest.raises(RallyError) as err:
        runner.prepare()
    message = str(err.value)
    assert message.startswith("rally db create and env create failed:\n")
    assert "creating Rally's database or environment failed" in message
    assert SECRET not in message
    log = (run.logs / "rally.log").read_text()
    assert "ManagerInvalidSpec" in log and "***" in log
    assert SECRET not in log


def test_start_task(
    runner: RallyRunner, run: RunDir, fake_rally: dict, echoed: list[str]
) -> None:
    fake_rally["output"].write_text(
        _header(UUID, ["mode:uwsgi"])
        + _running_workload({"constant": {"times": 25}})
        + "\n"
        + "".join(_iter_end(n) + "\n" for n in range(1, 26))
        + f"{PREFIX}auth with password {SECRET}\n"
        + f"{PREFIX}Finished workload 1/1\n"
    )
    task = run.root / "smoke.json"
    outcome = runner.start_task(task, tags=["mode:uwsgi", "size:quick"])
    assert outcome == rally_runner.TaskOutcome(
        task_file=task,
        uuid=UUID,
        exit_code=0,
        report=run.results / f"smoke-{UUID[:8]}.json",
        interrupted=False,
    )
    assert json.loads((run.results / f"smoke-{UUID[:8]}.json").read_text()) == {
        "uuid": UUID
    }
    config = ["--config-file", str(run.private / "rally.conf")]
    assert _calls(fake_rally["record"]) == [
        [
            *config,
            "task",
            "start",
            str(task),
            "--env",
            rally_runner.ENV_NAME,
            "--no-use",
            "--tag",
            "mode:uwsgi",
            "--tag",
            "size:quick",
        ],
        [
            *config,
            "task",
            "report",
            UUID,
            "--json",
            "--out",
            str(run.results / f"smoke-{UUID[:8]}.json"),
        ],
    ]
    assert echoed == [
        f"rally task {UUID} started",
        "  Running workload: KeystonePerf.create_token (constant, times 25)",
        "  25 iterations done (0 failed)",
        "  Finished workload 1/1",
    ]
    log = (run.logs / "rally.log").read_text()
    assert f"{PREFIX}auth with password ***\n" in log
    assert SECRET not in log
    assert "ITER: 25 END: OK" in log


def test_around_task_wraps_each_task(
    runner: RallyRunner, run: RunDir, fake_rally: dict
) -> None:
    fake_rally["output"].write_text(_header(UUID, []))
    seen: list[str] = []

    @contextlib.contextmanager
    def around() -> Iterator[None]:
        seen.append("in")
        yield
        seen.append("out")

    runner.around_task = around
    runner.start_task(run.root / "smoke.json")
    assert seen == ["in", "out"]


def test_start_task_sla_failure_keeps_the_report(
    runner: RallyRunner, run: RunDir, fake_rally: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_rally["output"].write_text(_header(UUID, ["mode:uwsgi"]))
    monkeypatch.setenv("FAKE_EXIT", "2")
    outcome = runner.start_task(run.root / "t.json", tags=["mode:uwsgi"])
    assert outcome.exit_code == 2
    assert outcome.uuid == UUID
    assert outcome.report == run.results / f"t-{UUID[:8]}.json"
    assert not outcome.interrupted


def test_start_task_that_never_started(
    runner: RallyRunner, run: RunDir, fake_rally: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_rally["output"].write_text("Env 'keystone-perf' not found\n")
    monkeypatch.setenv("FAKE_EXIT", "1")
    outcome = runner.start_task(run.root / "t.json", tags=["mode:uwsgi"])
    assert (outcome.uuid, outcome.exit_code, outcome.report) == (None, 1, None)
    calls = _calls(fake_rally["record"])
    assert [c[2:4] for c in calls] == [["task", "start"]]


def test_export_failure_is_reported_not_raised(
    runner: RallyRunner,
    run: RunDir,
    fake_rally: dict,
    echoed: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_rally["output"].write_text(_header(UUID, ["mode:uwsgi"]))
    monkeypatch.setenv("FAKE_FAIL", "task report")
    outcome = runner.start_task(run.root / "t.json", tags=["mode:uwsgi"])
    assert outcome.report is None
    assert outcome.exit_code == 0
    assert echoed[0] == f"rally task {UUID} started"
    assert echoed[1].startswith(
        f"could not export the results of task {UUID}: rally task report failed:"
    )
    assert SECRET not in echoed[1]


def test_reports_of_tasks_with_the_same_name_are_kept(
    runner: RallyRunner, run: RunDir, fake_rally: dict, tmp_path: Path
) -> None:
    fake_rally["output"].write_text(_header(UUID, ["mode:uwsgi"]))
    first = runner.start_task(tmp_path / "a" / "smoke.json", tags=["mode:uwsgi"])
    fake_rally["output"].write_text(_header(OTHER_UUID, ["mode:uwsgi"]))
    second = runner.start_task(tmp_path / "b" / "smoke.json", tags=["mode:uwsgi"])
    assert first.report is not None and second.report is not None
    assert first.report != second.report
    assert json.loads(first.report.read_text()) == {"uuid": UUID}
    assert json.loads(second.report.read_text()) == {"uuid": OTHER_UUID}


def test_rallys_environment_names_the_run_for_the_user_agent(
    runner: RallyRunner, run: RunDir
) -> None:
    assert runner._env()[lean_http.RUN_NAME_ENV] == run.root.name
