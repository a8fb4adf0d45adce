"""The nova-fake stack's set-up commands: schemas, cell mappings, host mapping.

Each runs to its end with its output appended to a log in the run's
``logs/`` (:func:`run_logged`); a failure names the step and shows the log.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import logtail, probes
from rally_keystone_perf.deploy.nova.config import (
    STEP_TIMEOUT,
    StackError,
    StackPlan,
    compute_hosts,
    stack_dir,
)
from rally_keystone_perf.layout.rundir import (
    RunDir,
)

# cell mapping templates (nova.objects.cell_mapping formats them per service)
CELL_DB = "{scheme}://{username}:{password}@{hostname}:{port}/{path}?{query}"
CELL0_DB = "{scheme}://{username}:{password}@{hostname}:{port}/nova_cell0?{query}"
CELL_MQ = "{scheme}://{username}:{password}@{hostname}:{port}/"


def run_logged(
    run: RunDir,
    log_name: str,
    argv: list[str],
    what: str,
    env: dict[str, str] | None = None,
) -> str:
    """Run a setup command, its output appended to a log; return the output."""
    log_path = run.logs / log_name
    result = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        cwd=run.root,
    )
    with open(log_path, "a") as log:
        log.write(f"$ {Path(argv[0]).name} {' '.join(argv[1:])}\n")
        log.write(result.stdout + result.stderr)
    if result.returncode != 0:
        raise StackError(
            f"{what} failed (exit {result.returncode}); last lines of its log:\n"
            + logtail.named_tail(log_path)
        )
    return result.stdout


def exe(name: str) -> str:
    return str(paths.venv_bin(name))


def sync_databases(run: RunDir) -> None:
    """Create every schema (placement, glance, nova's three, neutron)."""
    top = stack_dir(run)
    nova = [exe("nova-manage"), "--config-file", str(top / "nova" / "nova.conf")]
    steps = [
        (
            [exe("placement-manage"), "--config-file"]
            + [str(top / "placement" / "placement.conf"), "db", "sync"],
            "placement-manage db sync",
        ),
        (
            [exe("glance-manage"), "--config-file"]
            + [str(top / "glance" / "glance-api.conf"), "db_sync"],
            "glance-manage db_sync",
        ),
        ([*nova, "api_db", "sync"], "nova-manage api_db sync"),
        # the cell mappings hold URL templates that each service fills from
        # its own config: no password is stored in nova_api or typed here
        (
            [*nova, "cell_v2", "map_cell0", "--database_connection", CELL0_DB],
            "nova-manage cell_v2 map_cell0",
        ),
        (
            [*nova, "cell_v2", "create_cell", "--name", "cell1"]
            + ["--database_connection", CELL_DB, "--transport-url", CELL_MQ],
            "nova-manage cell_v2 create_cell",
        ),
        ([*nova, "db", "sync"], "nova-manage db sync"),
        (
            [exe("neutron-db-manage"), "--config-file"]
            + [str(top / "neutron" / "neutron.conf"), "upgrade", "heads"],
            "neutron-db-manage upgrade heads",
        ),
    ]
    for argv, what in steps:
        run_logged(run, "stack-manage.log", argv, what)


def map_compute_hosts(
    run: RunDir, plan: StackPlan, procs: dict[str, subprocess.Popen[bytes]]
) -> None:
    """Map the fake compute hosts to cell1 (``discover_hosts`` until listed).

    A compute that exits meanwhile fails the start at once, with its log.
    """
    nova = [
        exe("nova-manage"),
        "--config-file",
        str(stack_dir(run) / "nova" / "nova.conf"),
        "cell_v2",
    ]
    hosts = compute_hosts(plan)

    computes = {n: p for n, p in procs.items() if n.startswith("nova-compute-")}

    def mapped() -> bool:
        for name, proc in computes.items():
            if proc.poll() is not None:
                raise StackError(
                    f"{name} exited with code {proc.returncode} while starting; "
                    f"last lines of its log:\n"
                    + logtail.named_tail(run.logs / f"{name}.log")
                )
        run_logged(run, "stack-manage.log", [*nova, "discover_hosts"], "discover")
        listed = run_logged(run, "stack-manage.log", [*nova, "list_hosts"], "list")
        if all(f" {host} " in listed for host in hosts):
            return True
        time.sleep(2)
        return False

    probes.wait_until(
        mapped,
        computes["nova-compute-1"],
        "nova-compute-1",
        STEP_TIMEOUT,
        lambda: logtail.named_tail(run.logs / "nova-compute-1.log"),
        not_ready=f"the compute hosts {', '.join(hosts)} were not all mapped to a cell",
    )
