"""A Keystone worker killed mid-load costs only its in-flight requests.

For each kind of worker (uwsgi's, Apache's, eventlet's; nginx+uwsgi runs
uwsgi's workers behind nginx, and its kill is uwsgi's: left out for CI's
time): ``rally-keystone-perf run`` of a list_projects
workload at concurrency 4; once the load runs, the busiest Keystone worker
process gets SIGKILL (as the OOM killer would). Every planned iteration is
recorded, a failed one fails within 5 s (connection closed, bad gateway: not
the client's 120 s timeout, as uwsgi's keep-alive router did), and the
report's error breakdown names the failures. Each mode's run is also the
check test_modes makes of the uwsgi backends and nginx: stopped, labelled
with its mode, its requests in the server's own access log.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.readers.rally_json import load_report
from tests.functional.conftest import (
    cli_options,
    require_mode,
    run_processes,
    write_task,
)

pytestmark = pytest.mark.functional

TIMES = 300  # a load of several seconds: the kill must land inside it
FAIL_WITHIN = 5.0
WORKLOAD = {
    "scenario": {"KeystonePerf.list_projects": {}},
    "runner": {"constant": {"times": TIMES, "concurrency": 4}},
    "contexts": {"users": {"tenants": 1, "users_per_tenant": 1}},
}
MODES = ["uwsgi", "apache", "eventlet"]


def _workers(run: RunDir) -> list[psutil.Process]:
    """The processes running Keystone's code (not masters, routers, nginx)."""
    state = run.read_state()
    if state["mode"] == "apache":
        return [
            p for p in run_processes(run) if "wsgi:keystone" in " ".join(p.cmdline())
        ]
    lines = run.access_log.read_text().splitlines()[-40:]
    pids = {int(line.split()[-1]) for line in lines if line[:1].isdigit()}
    master = psutil.Process(int(state["server_pid"]))
    return [p for p in master.children(recursive=True) if p.pid in pids]


def _busiest(workers: list[psutil.Process]) -> psutil.Process:
    for proc in workers:
        proc.cpu_percent(None)
    time.sleep(0.5)
    return max(workers, key=lambda p: p.cpu_percent(None))


def _kill_mid_request(victim: psutil.Process) -> bool:
    """SIGKILL the worker while it runs on a CPU, i.e. inside a request.

    Keystone's list_projects is CPU work in the worker; a worker between
    requests sleeps in accept/epoll. Killing it asleep would cost no request
    and leave the test nothing to check (CI once did). Returns whether it was
    caught running within 10 s.
    """
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if not victim.is_running():
            raise AssertionError("the load ended before the kill: raise TIMES")
        if victim.status() == psutil.STATUS_RUNNING:
            victim.send_signal(signal.SIGKILL)
            return True
        time.sleep(0.002)
    victim.send_signal(signal.SIGKILL)
    return False


@pytest.mark.parametrize("mode", MODES)
def test_a_killed_worker_costs_only_its_requests(
    tmp_path: Path,
    runs_dir: Path,
    mode: str,
) -> None:
    require_mode(cli_options(["--mode", mode]))
    task = write_task(tmp_path / "dead-worker.json", [WORKLOAD])
    runs = runs_dir / f"dead-worker-{mode}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "rally_keystone_perf.cli", "run", "--mode", mode]
        + ["--task", str(task), "--runs-dir", str(runs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:  # wait until the load is running
        seen.append(line)
        if "25 iterations done" in line:
            break
    assert any("25 iterations done" in line for line in seen), "".join(seen)
    run = RunDir((runs / "current").resolve())
    caught_running = _kill_mid_request(_busiest(_workers(run)))
    out, err = proc.communicate(timeout=300)
    assert not run_processes(run), err
    (report,) = run.results.glob("dead-worker-*.json")
    (workload,) = load_report(report)
    assert len(workload.iterations) == TIMES  # every planned iteration recorded
    failed = [it for it in workload.iterations if it.error]
    slow = [it.duration for it in failed if it.duration > FAIL_WITHIN]
    assert not slow, f"failed iterations waited {slow} s"
    assert max(it.duration for it in workload.iterations) < 30, json.dumps(
        [it.duration for it in workload.iterations]
    )
    if mode == "uwsgi":  # single-threaded: killed running, its request failed
        assert caught_running
        assert failed
    # the mode's run as test_modes checks its own: stopped, labelled, and
    # every answered request in the server's own access log
    state = run.read_state()
    assert (state["status"], state["mode"]) == ("stopped", mode)
    assert f"config: mode {mode}," in out
    log = run.access_log.read_text()
    assert log.count(" GET /v3/projects 200 ") >= TIMES - len(failed)
    for iteration in failed:  # the report's error breakdown names them
        assert iteration.error[0] in out, out
