"""``run --os-cloud``: Rally against someone else's Keystone, then a sweep.

No server is started. The run folder records the target (never a secret),
Rally's environment is made from it in the run's private Rally database, and
on the way out (normal end, a failed workload, Ctrl-C or SIGTERM) whatever
the run's tasks created and Rally's cleanup left is deleted by name
(:mod:`..deploy.own_cloud.sweep`) and counted.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from rally_keystone_perf import stop_signals
from rally_keystone_perf.deploy import machine_probe
from rally_keystone_perf.deploy.own_cloud import sweep
from rally_keystone_perf.deploy.own_cloud.probe import Probe
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget
from rally_keystone_perf.layout.rundir import RunDir, new_run_dir, write_private_json
from rally_keystone_perf.run import rally_runner
from rally_keystone_perf.run.session import record_machine, run_redactor
from rally_keystone_perf.tasks.own_cloud import Plan

Echo = Callable[[str], None]
CloudRun = AbstractContextManager[tuple[RunDir, rally_runner.RallyRunner]]
RUN_NAME = "external"  # run folders are <stamp>-external


def env_spec(
    target: CloudTarget, found: Probe, users: Sequence[dict[str, str]]
) -> dict[str, Any]:
    """Rally's ``existing@openstack`` spec: the cloud's user as admin, and
    the existing users (none: Rally's users context creates them)."""
    spec: dict[str, Any] = {
        "auth_url": found.v3_url,
        "region_name": target.region or "",
        "endpoint_type": target.interface,
        "https_insecure": not target.verify,
        "admin": target.credential(),
    }
    if target.cacert:
        spec["https_cacert"] = target.cacert
    if users:
        spec["users"] = list(users)
    return {"openstack": spec}


def spec_users(
    target: CloudTarget, plan: Plan, given: Sequence[dict[str, str]]
) -> list[dict[str, str]]:
    """The env's existing users: those given, the cloud's own, or none."""
    if given:
        return list(given)
    return [target.credential()] if plan.existing_users else []


def prepare_run(
    runs_dir: Path,
    target: CloudTarget,
    found: Probe,
    plan: Plan,
    given: Sequence[dict[str, str]] = (),
) -> RunDir:
    """A run folder for the cloud: run.json (no secret), the private spec."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    run = new_run_dir(runs_dir, RUN_NAME)
    users = spec_users(target, plan, given)
    passwords = [target.password, *(u.get("password", "") for u in users)]
    write_private_json(run.target_secret, {"passwords": passwords})
    write_private_json(run.env_spec, env_spec(target, found, users))
    run.write_state(
        status="running",
        auth_url=found.v3_url,
        target={**target.public(), **found.public(), "plan": plan.lines()},
        created_at=time.time(),
        driver_pid=os.getpid(),
    )
    return run


def existing_usernames(run: RunDir) -> list[str]:
    """The names of the existing users the run's env spec gives Rally (none
    when its users context created them, or the spec is gone)."""
    try:
        spec = json.loads(run.env_spec.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    users = spec.get("openstack", {}).get("users", [])
    return [str(u["username"]) for u in users if u.get("username")]


def _sweep(
    run: RunDir, target: CloudTarget, plan: Plan, task_ids: Sequence[str], echo: Echo
) -> None:
    """Delete what the tasks left, count what stays; into run.json and out."""
    echo("sweeping the target for what the run created")
    users = existing_usernames(run)  # their application credentials, by name
    result = sweep.sweep(target, task_ids, bool(plan.boots()), users, run.scope_grants)
    run.write_state(
        target_sweep={
            "tasks": list(task_ids),
            "found": result.found,
            "deleted": result.deleted,
            "left": result.left,
            "errors": result.errors,
        }
    )
    echo(result.line())
    for problem in result.errors[1:]:
        echo(f"  {problem}")


@contextlib.contextmanager
def cloud_session(
    run: RunDir, target: CloudTarget, plan: Plan, echo: Echo
) -> Iterator[rally_runner.RallyRunner]:
    """Rally prepared for the cloud; the sweep when the block ends, however."""
    stop_signals.install()  # SIGTERM and SIGHUP end the block as Ctrl-C does
    runner = rally_runner.RallyRunner(run, run_redactor(run), echo)
    watch = None
    try:
        echo("preparing Rally (database and environment in the run folder)")
        runner.prepare()
        watch = machine_probe.MachineWatch.start()
        yield runner
    finally:
        if watch is not None:
            record_machine(run, watch, echo)
        with stop_signals.shielded():  # a signal now: raised after the sweep
            if plan.writes:
                _sweep(run, target, plan, runner.task_ids, echo)
            run.write_state(status="stopped", stopped_at=time.time(), driver_pid=None)


@contextlib.contextmanager
def cloud_run(
    runs_dir: Path,
    target: CloudTarget,
    found: Probe,
    plan: Plan,
    given: Sequence[dict[str, str]],
    echo: Echo,
) -> Iterator[tuple[RunDir, rally_runner.RallyRunner]]:
    """A new run folder for the cloud and Rally in it (``matrix --os-cloud``:
    one per block, as a local matrix starts one Keystone per mode)."""
    run = prepare_run(runs_dir, target, found, plan, given)
    echo(f"run folder: {run.root}")
    with cloud_session(run, target, plan, echo) as runner:
        yield run, runner
