"""Deployment modes start for real, serve tokens through Rally, stop.

Each case runs ``rally-keystone-perf run`` with one token-create workload:
uwsgi with MariaDB and memcached (one run for both backends: CI's time),
nginx+uwsgi on SQLite (Apache and eventlet run through Rally in
test_dead_worker, which checks the same).
A mode whose Debian packages are missing is skipped, except under CI=true
(``.ci/run`` installs them), where that is a failure.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.layout.rundir import RunDir
from tests.functional.conftest import (
    FAST_HASH_ROUNDS,
    cli_options,
    require_mode,
    run_processes,
    write_task,
)

pytestmark = pytest.mark.functional

TOKEN_WORKLOAD = {
    "scenario": {"KeystonePerf.create_token": {}},
    "runner": {"constant": {"times": 12, "concurrency": 2}},
    "contexts": {"users": {"tenants": 1, "users_per_tenant": 2}},
    "sla": {"failure_rate": {"max": 0}},
}

CASES = [
    pytest.param(
        ["--mode", "uwsgi", "--db", "mysql", "--cache", "memcached"],
        id="uwsgi-mysql-memcached",
    ),
    pytest.param(["--mode", "nginx-uwsgi"], id="nginx-uwsgi"),
    # apache and eventlet: test_dead_worker runs each through Rally and
    # checks the same (stopped, labelled, the access log): CI's time
]


@pytest.mark.parametrize("argv", CASES)
def test_mode_serves_tokens_through_rally_and_stops(
    argv: list[str], runs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = cli_options(argv)
    require_mode(options)
    task = write_task(runs_dir / f"token-{options.mode}.json", [TOKEN_WORKLOAD])
    runs = runs_dir / f"{options.mode}-{options.cache}-{options.db}"
    code = cli.main(
        [
            "run",
            *argv,
            "--task",
            str(task),
            "--runs-dir",
            str(runs),
            "--password-hash-rounds",
            str(FAST_HASH_ROUNDS),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "keystone.create_token" in out
    run = RunDir((runs / "current").resolve())
    state = run.read_state()
    assert state["status"] == "stopped"
    assert state["mode"] == options.mode
    # the report labels results with the configuration it ran under
    assert f"config: mode {options.mode}," in out
    (report,) = run.results.glob("*.json")
    data = json.loads(report.read_text())
    workload = data["tasks"][0]["subtasks"][0]["workloads"][0]
    assert workload["total_iteration_count"] == 12
    assert workload["failed_iteration_count"] == 0
    # every server process is gone, whatever user it ran as
    assert not run_processes(run)
    assert not Path(state["sockets_dir"]).exists()
    # the server's own access log saw the token requests
    posts = [
        line
        for line in run.access_log.read_text().splitlines()
        if " POST /v3/auth/tokens 201 " in line
    ]
    assert len(posts) >= 12
    if options.cache == "memcached":
        assert (
            "backend = dogpile.cache.pymemcache"
            in (run.conf / "keystone.conf").read_text()
        )
    if options.db == "mysql":
        assert not (run.db / "keystone.sqlite").exists()
        secret = json.loads((run.private / "db.json").read_text())["password"]
        for path in run.root.rglob("*"):
            if path.is_file() and run.private not in path.parents:
                assert secret not in path.read_text(errors="replace"), path
    else:
        with sqlite3.connect(run.db / "keystone.sqlite") as conn:
            assert conn.execute("SELECT count(*) FROM local_user").fetchone()[0] >= 1
