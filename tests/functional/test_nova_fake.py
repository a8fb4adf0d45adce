"""The nova-fake mode: a real Nova beside the local Keystone boots servers.

Runs the bundled quick boot task (seed 004's concurrency 5) through the CLI
on a stack started by the launcher: RabbitMQ, Placement, Glance, a minimal
Neutron, nova-api, conductor, scheduler and two fake computes. Skipped when the
``nova`` extra or RabbitMQ is missing, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf import cli, paths
from rally_keystone_perf.client import atomics
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.readers.rally_json import load_report
from tests.functional.conftest import require_mode, run_processes

pytestmark = pytest.mark.functional


def test_boot_server_quick_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_mode(LaunchOptions(mode="nova-fake"))
    runs = tmp_path / "runs"
    code = cli.main(
        [
            "run",
            "--mode",
            "nova-fake",
            "--task",
            str(paths.tasks_dir() / "boot-server-c5-quick.json"),
            "--fake-computes",
            "2",
            "--runs-dir",
            str(runs),
        ]
    )
    captured = capsys.readouterr()
    out = captured.out
    (folder,) = runs.glob("2*-nova-fake")
    run = RunDir(folder)
    assert not run_processes(run), "processes of the stack were left running"
    assert code == 0, out
    # progress (stderr): the stack's start-up time and memory
    err = captured.err
    assert "Nova stack (2 fake compute hosts) up in" in err and "MB RSS over" in err

    (report,) = run.results.glob("boot-server-c5-quick-*.json")
    (workload,) = load_report(report)
    assert len(workload.iterations) == 10
    assert not [it.error for it in workload.iterations if it.error]
    names = {a["name"] for it in workload.iterations for a in it.atomic_actions}
    assert names == {atomics.BOOT_SERVER, atomics.DELETE_SERVER}
    for row in (atomics.BOOT_SERVER, atomics.DELETE_SERVER):
        assert f"| {row} " in out
    # Nova, Glance, Placement and Neutron validated the users' tokens
    validations = next(
        line for line in out.splitlines() if "| GET /v3/auth/tokens " in line
    )
    assert int(validations.split("|")[2]) >= 10  # route, requests, ...

    state = run.read_state()
    assert state["stack"]["computes"] == 2
    assert state["stack"]["seconds"]["total"] > 0
    # both fake hosts took servers: the scheduler saw two compute hosts
    for index in (1, 2):
        log = (run.logs / f"nova-compute-{index}.log").read_text()
        assert "seconds to spawn the instance" in log
    # stopped last started first: no service lost RabbitMQ before it stopped
    for path in run.logs.glob("nova-*.log"):
        assert "AMQP server on" not in path.read_text(), path
    assert state["stack"]["rss_mb"] > 0
    # the generated passwords stay in private files (and Nova's database)
    # admin, the stack's three, MariaDB's keystone user, a user pool's
    secrets = run.state().secrets()
    assert len(secrets) == 5 + run.user_pool.is_file()
    for path in [*run.logs.rglob("*"), *run.results.rglob("*"), *run.conf.rglob("*")]:
        if path.is_file():
            text = path.read_text(errors="replace")
            assert not [s for s in secrets if s in text], path
    assert not [s for s in secrets if s in out + captured.err]
