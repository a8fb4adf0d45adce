"""``rally-keystone-perf run`` end to end: exit codes, faults, Ctrl-C."""

from __future__ import annotations

import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.client import tracing as client_tracing
from rally_keystone_perf.deploy import launcher, user_pool
from rally_keystone_perf.deploy.keystone import config
from rally_keystone_perf.deploy.tracing import profiler
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.layout.tracing import TRACES_DIR
from tests.functional.conftest import FAST_HASH_ROUNDS, run_processes, write_task

pytestmark = pytest.mark.functional

FAST = ["--password-hash-rounds", str(FAST_HASH_ROUNDS)]


def _token_workload(times: int, sla: dict) -> dict:
    return {
        "scenario": {"KeystonePerf.create_token": {}},
        "runner": {"constant": {"times": times, "concurrency": 2}},
        "contexts": {"users": {"tenants": 1, "users_per_tenant": 2}},
        "sla": sla,
    }


def _only_run(runs: Path) -> RunDir:
    (folder,) = [p for p in runs.iterdir() if p.is_dir() and not p.is_symlink()]
    return RunDir(folder)


def _local_users(run: RunDir) -> list[str]:
    with sqlite3.connect(run.db / "keystone.sqlite") as conn:
        return [row[0] for row in conn.execute("SELECT name FROM local_user")]


def test_run_prints_the_table_exits_2_on_a_failed_sla_and_stops_keystone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One run for three checks (CI's time): the table, exit 2 when a
    workload's SLA fails, and without ``--trace`` no profiler anywhere."""
    ok = _token_workload(6, {"failure_rate": {"max": 0}})
    too_slow = _token_workload(4, {"max_seconds_per_iteration": 0.001})
    task = write_task(tmp_path / "ok.json", [ok, too_slow])
    runs = tmp_path / "runs"
    code = cli.main(["run", "--task", str(task), "--runs-dir", str(runs), *FAST])
    out = capsys.readouterr().out
    assert code == 2  # the second workload's SLA
    assert "keystone.create_token" in out and " p95 |" in out
    assert "config: mode uwsgi" in out  # the configuration, once per workload
    run = _only_run(runs)
    (report,) = run.results.glob("ok-*.json")
    assert not run_processes(run)
    assert run.read_state()["status"] == "stopped"
    _check_untraced(run, report)


def _check_untraced(run: RunDir, report: Path) -> None:
    """A run without ``--trace``: no OSProfiler, no Redis, no trace ids."""
    assert client_tracing.OUTPUT_TITLE not in report.read_text()
    assert "[profiler]" not in (run.conf / "keystone.conf").read_text()
    assert run.state().trace_backend is None
    assert not (run.root / TRACES_DIR).exists()
    assert not profiler.hmac_key_file(run).exists()
    assert not (run.logs / f"{profiler.REDIS_SERVICE}-stdout.log").exists()
    assert "OSProfiler is enabled" not in (run.logs / "keystone.log").read_text()


def test_port_in_use_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = cli.main(["up", "--port", str(port), "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"port {port} on 127.0.0.1 is in use" in err
    assert "Traceback" not in err


def test_keystone_failing_to_start_shows_its_log_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = config.template_values

    def broken_database(*args, **kwargs):  # type: ignore[no-untyped-def]
        values = real(*args, **kwargs)
        values["database_connection_line"] = (
            "connection = sqlite:////nonexistent/dir/keystone.sqlite"
        )
        return values

    monkeypatch.setattr(config, "template_values", broken_database)
    code = cli.main(["up", "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1
    assert "keystone-manage db_sync failed" in err
    assert "unable to open database file" in err  # from keystone-manage's own log
    run = _only_run(tmp_path)
    assert run.read_state()["status"] == "failed"
    assert not run_processes(run)


def _start_long_run(tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    """``run`` of a long create_token task, returned once the load is running."""
    task = write_task(
        tmp_path / "long.json", [_token_workload(5000, {"failure_rate": {"max": 0}})]
    )
    runs = tmp_path / "runs"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rally_keystone_perf.cli",
            "run",
            "--task",
            str(task),
            "--runs-dir",
            str(runs),
            *FAST,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 300
    seen = []
    for line in proc.stderr:  # wait until the load is running
        seen.append(line)
        if "iterations done" in line or time.monotonic() > deadline:
            break
    assert any("iterations done" in line for line in seen), "".join(seen)
    return proc, runs


# SIGTERM (143) as Ctrl-C: test_ab, test_locust_engine and test_own_cloud
# send it mid-run; here Ctrl-C only (CI's time)
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130)])
def test_interrupt_stops_servers_cleans_up_and_keeps_results(
    tmp_path: Path, signum: int, code: int
) -> None:
    """Ctrl-C, and SIGTERM (timeout, CI cancellation, systemd) alike."""
    proc, runs = _start_long_run(tmp_path)
    proc.send_signal(signum)
    started = time.monotonic()
    out, err = proc.communicate(timeout=300)
    assert time.monotonic() - started < 90, err
    assert proc.returncode == code, err
    assert "aborting the Rally task" in err
    assert "keystone.create_token" in out  # the partial results are reported
    run = _only_run(runs)
    (report,) = run.results.glob("long-*.json")
    assert report.stat().st_size > 0
    assert not run_processes(run)
    # the users context cleaned up: only the admin and the run's pool user
    # (the Rally env's existing user, never deleted) are left
    users = _local_users(run)
    assert sorted(users)[0] == "admin"
    assert len(users) == 2 and users[1].startswith(user_pool.NAME_PREFIX)

    # everything under private/ is its owner's alone (Rally's database too)
    files = [path for path in run.private.rglob("*") if path.is_file()]
    assert run.private / "rally.sqlite" in files
    assert {path.name: path.stat().st_mode & 0o777 for path in files} == {
        path.name: 0o600 for path in files
    }


def _is_rally(proc: psutil.Process) -> bool:
    """A process of the rally command (its argv names the run's rally.conf).

    One that exited since it was listed is not (it may be a zombie by now).
    """
    try:
        return any(arg.endswith("rally.conf") for arg in proc.cmdline())
    except psutil.Error:  # NoSuchProcess, ZombieProcess
        return False


def test_a_killed_run_leaves_nothing_after_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL of the command: Rally stops with it, down stops the servers."""
    proc, runs = _start_long_run(tmp_path)
    proc.kill()
    proc.communicate(timeout=60)
    run = _only_run(runs)
    try:
        deadline = time.monotonic() + 30
        while rally := [p.pid for p in run_processes(run) if _is_rally(p)]:
            assert time.monotonic() < deadline, f"Rally outlived it: {rally}"
            time.sleep(0.5)
        assert run_processes(run), "the servers are left for down to stop"
        assert cli.main(["status", "--runs-dir", str(runs)]) == 0
        assert "orphaned: started by pid" in capsys.readouterr().out
        assert cli.main(["down", "--runs-dir", str(runs)]) == 0
        assert "stopped the processes of" in capsys.readouterr().err
        assert not run_processes(run)
    finally:  # a failure above must not leave a loaded Keystone behind
        launcher.stop(run)
        for leftover in run_processes(run):
            leftover.kill()
