"""Fixtures that start a real local Keystone (uwsgi, SQLite) with the launcher."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Generator, Iterator
from pathlib import Path

import psutil
import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.client import keystone_v3
from rally_keystone_perf.deploy import launcher, preflight
from rally_keystone_perf.deploy.instructions import markers
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions, resolve
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import rally_runner
from rally_keystone_perf.run.session import run_redactor

# bcrypt's minimum cost keeps the users contexts' setup short; the scenarios'
# request counts do not depend on it.
FAST_HASH_ROUNDS = 4


def run_processes(run: RunDir) -> list[psutil.Process]:
    """Live processes whose command line names this run folder or run in it.

    Every service starts in the run folder (RabbitMQ's epmd and Erlang VM do
    not name it on their command line; PostgreSQL's workers run in its data
    folder inside it). A zombie is not live: a killed process whose parent
    died is reparented to PID 1, which in a container may never reap it.
    """
    found = []
    root = str(run.root)
    for proc in psutil.process_iter(["cmdline", "cwd", "status"]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        cmdline = " ".join(proc.info["cmdline"] or [])
        cwd = proc.info["cwd"] or ""
        if root in cmdline or cwd == root or cwd.startswith(root + "/"):
            found.append(proc)
    return found


def require_mode(options: LaunchOptions) -> None:
    """Skip (fail under CI) when the mode's programs are not installed."""
    try:
        preflight.check_requirements(preflight.requirements(resolve(options)))
    except LaunchError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must install what every mode needs: {exc}")
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def keystone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunDir]:
    """One real Keystone for the session's read-mostly tests."""
    runs = tmp_path_factory.mktemp("runs")
    run = launcher.up(
        runs, resolve(LaunchOptions(password_hash_rounds=FAST_HASH_ROUNDS))
    )
    try:
        yield run
    finally:
        launcher.stop(run)
    assert not run_processes(run), "server processes were left running"


@pytest.fixture(scope="session")
def rally(keystone: RunDir) -> rally_runner.RallyRunner:
    """A Rally database and environment for the session's Keystone."""
    runner = rally_runner.RallyRunner(
        keystone, run_redactor(keystone), lambda _msg: None
    )
    runner.prepare()
    return runner


def admin_client(run: RunDir) -> tuple[keystone_v3.IdentityClient, str]:
    """An identity client of the run's Keystone and a fresh admin token."""
    secret = json.loads(run.admin_secret.read_text())
    identity = keystone_v3.IdentityClient(
        keystone_v3.shared_session(), str(run.state().auth_url)
    )
    user = keystone_v3.PasswordUser(
        secret["username"], secret["password"], project_name="admin"
    )
    return identity, identity.create_token(user)


def write_task(path: Path, workloads: list[dict]) -> Path:
    """Write a Rally v2 task with one subtask per workload."""
    task = {
        "version": 2,
        "title": path.stem,
        "subtasks": [
            {"title": next(iter(w["scenario"])), "workloads": [w]} for w in workloads
        ],
    }
    path.write_text(json.dumps(task, indent=2))
    return path


def run_bundled_task(
    name: str, options: list[str], runs: Path, task: Path | None = None
) -> tuple[int, RunDir]:
    """``run --task tasks/<name> <options> --keep-running`` with fast hashing
    into ``runs`` (skipped without the options' servers); the exit code and
    the run, whose servers the caller stops. ``task``: a copy of it to run
    instead (:func:`retimed_task`)."""
    require_mode(cli_options(options))
    task = task or Path(__file__).parents[2] / "tasks" / name
    argv = ["run", "--task", str(task), *options, "--keep-running"]
    argv += ["--password-hash-rounds", str(FAST_HASH_ROUNDS), "--runs-dir", str(runs)]
    code = cli.main(argv)
    (root,) = runs.glob("2*")
    return code, RunDir(root)


def retimed_task(
    name: str, folder: Path, duration: int, at: list[int], window: list[int]
) -> Path:
    """A copy of bundled fault task ``name`` on a shorter clock, in ``folder``.

    Its one workload's load lasts ``duration`` seconds, its time-triggered
    hooks fire at ``at`` (in their order) and its failure_window SLA is
    ``window`` (from, to): the same faults and the same judge as the
    bundled task's 60 s, in what CI's budget holds.
    """
    task = json.loads((Path(__file__).parents[2] / "tasks" / name).read_text())
    (workload,) = task["subtasks"][0]["workloads"]
    workload["runner"]["constant_for_duration"]["duration"] = duration
    hooks = workload["hooks"]
    assert len(hooks) == len(at), f"{name} has {len(hooks)} hooks"
    for hook, second in zip(hooks, at, strict=True):
        hook["trigger"]["event"]["at"] = [second]
    workload["sla"]["failure_window"] = dict(zip(("from", "to"), window, strict=True))
    path = folder / name
    path.write_text(json.dumps(task, indent=2))
    return path


def cli_options(argv: list[str]) -> LaunchOptions:
    """The launch options ``rally-keystone-perf up ARGV`` would use."""
    from rally_keystone_perf import cli
    from rally_keystone_perf.cli import common

    return common.launch_options(cli.build_parser().parse_args(["up", *argv]))


@pytest.fixture
def runs_dir() -> Iterator[Path]:
    """A runs folder Apache's www-data workers can reach (pytest's is 0700),
    removed after the test (kept when it failed, to read its logs)."""
    root = Path(os.environ.get("KEYSTONE_PERF_TEST_RUNS", "/tmp"))
    folder = Path(tempfile.mkdtemp(prefix="keystone-perf-runs-", dir=root))
    folder.chmod(0o755)
    failures = _failures()
    yield folder
    if _failures() == failures:
        shutil.rmtree(folder, ignore_errors=True)


_FAILED: list[str] = []


def _failures() -> int:
    """Tests failed so far in this session (:func:`pytest_runtest_logreport`)."""
    return len(_FAILED)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Count failed test calls, so that a failed test's run folder stays."""
    if report.when == "call" and report.failed:
        _FAILED.append(report.nodeid)


# pytest-xdist runs the functional tests on two workers (tox -e functional);
# every worker of one run shares this lock file
RUN_ID_VARIABLE = "PYTEST_XDIST_TESTRUNUID"


def machine_lock(run_id: str) -> Path:
    """The lock file the workers of one test run share."""
    return Path(tempfile.gettempdir()) / f"keystone-perf-tests-{run_id}.lock"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    """Under pytest-xdist, a ``serial`` test has the machine to itself.

    Its setup (module fixtures included), call and teardown hold the lock
    exclusively; every other test holds it shared, so two of them may run
    at once, never beside a serial one. Without xdist there is one test at
    a time and no lock.
    """
    run_id = os.environ.get(RUN_ID_VARIABLE)
    if run_id is None:
        yield
        return
    alone = item.get_closest_marker("serial") is not None
    with open(machine_lock(run_id), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        yield  # the lock goes with the file's closing


@pytest.fixture
def valgrind_installed() -> None:
    """Skip (fail under CI) without valgrind and its headers: the
    instruction counts' tests."""
    if shutil.which("valgrind") is None or not markers.HEADER.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI must install valgrind (.ci/run does)")
        pytest.skip("valgrind is not installed (apt-get install valgrind)")
