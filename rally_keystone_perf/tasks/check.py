"""Check a Rally task file before any server starts (syntax and plugin schemas)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.backends.galera import MEMBERS as GALERA_MEMBERS
from rally_keystone_perf.deploy.options import Deployment
from rally_keystone_perf.layout import names
from rally_keystone_perf.tasks.model import TaskFile, TaskFileError


def validate(task: TaskFile) -> int:
    """Validate the task's syntax the way ``rally task start`` does first.

    Checks that every scenario, runner, context, SLA and hook exists, and
    their arguments against the plugins' schemas (the task format was checked
    by :meth:`TaskFile.load`). Platform and semantic checks need a live
    environment and are left to Rally. Returns the number of workloads.
    """
    from rally import exceptions, plugins  # costly: all of rally
    from rally.task import engine  # costly: all of rally

    plugins.load()
    checker = object.__new__(engine.TaskEngine)
    count = 0
    for workload in task.workloads():
        try:
            checker._validate_workload(workload, vtype="syntax")
        except exceptions.InvalidTaskConfig as exc:
            reason = " ".join(str(exc.kwargs.get("reason", exc)).split())
            raise TaskFileError(
                f"{task.path}: workload {workload['name']}[{workload['position']}]: "
                f"{reason}"
            ) from None
        count += 1
    if not count:
        raise TaskFileError(f"{task.path}: the task has no workloads")
    return count


def validate_task(path: Path, task_args: dict[str, Any] | None = None) -> int:
    """Load ``path`` and :func:`validate` it; the number of workloads."""
    return validate(TaskFile.load(path, task_args))


# Scenarios and contexts that create or change users: Keystone's LDAP
# identity driver is read-only (write support was removed after Mitaka), so
# with --identity ldap they could only fail, request after request.
IDENTITY_WRITERS = frozenset(
    {
        "KeystonePerf.create_delete_user",
        "KeystoneBasic.create_user",
        "KeystoneBasic.create_delete_user",
        "KeystoneBasic.create_user_set_enabled_and_delete",
        "KeystoneBasic.create_tenant_with_users",
        "KeystoneBasic.create_and_list_users",
        "KeystoneBasic.create_user_update_password",
        "KeystoneBasic.create_and_update_user",
    }
)
USER_CREATING_CONTEXTS = frozenset({"users"})  # Rally's, through the API


def check_identity(task: TaskFile, identity: str) -> None:
    """Refuse, before anything starts, workloads a read-only LDAP must fail.

    :raises TaskFileError: naming the workload and why, for ``ldap``.
    """
    if identity != "ldap":
        return
    for workload in task.workloads():
        where = f"{task.path}: workload {workload['name']}[{workload['position']}]"
        if workload["name"] in IDENTITY_WRITERS:
            raise TaskFileError(
                f"{where} creates users, and Keystone's LDAP identity driver is "
                "read-only; run it with --identity sql"
            )
        contexts = {name.split("@")[0] for name in workload["contexts"]}
        if contexts & USER_CREATING_CONTEXTS:
            raise TaskFileError(
                f"{where}: Rally's users context creates users, and Keystone's "
                "LDAP identity driver is read-only; use keystone_perf_users "
                "(the run's user pool, written into LDAP) or --identity sql"
            )


FAULT_HOOK = "keystone_perf_fault"


def check_faults(task: TaskFile, nodes: int, db: str) -> None:
    """Refuse, before anything starts, a fault on a host the run will not have.

    :raises TaskFileError: a ``keystone_perf_fault`` on node K of a run with
        fewer nodes, on the database of one without a server (SQLite), or on
        a Galera member of one without Galera.
    """
    for workload in task.workloads():
        where = f"{task.path}: workload {workload['name']}[{workload['position']}]"
        for hook in workload.get("hooks", []):
            name, config = hook["action"]
            if name != FAULT_HOOK or not isinstance(config, dict):
                continue
            target = str(config.get("target", ""))
            node = names.number(target, names.NODE)
            member = names.number(target, names.GALERA_MEMBER)
            if node is not None:
                if node > nodes:
                    raise TaskFileError(
                        f"{where}: its {FAULT_HOOK} hook acts on {target}, and "
                        f"the run has {nodes} node(s); run it with --nodes "
                        f"{node} or more"
                    )
            elif target == "database" and db == "sqlite":
                raise TaskFileError(
                    f"{where}: its {FAULT_HOOK} hook acts on the database, and "
                    f"--db {db} has no server (use --db mysql, galera or postgresql)"
                )
            elif member is not None and (db != "galera" or member > GALERA_MEMBERS):
                raise TaskFileError(
                    f"{where}: its {FAULT_HOOK} hook acts on {target}, a member "
                    f"of --db galera's {GALERA_MEMBERS}, and the run has --db {db}"
                )


def check_deployment(task: TaskFile, deployment: Deployment) -> None:
    """Everything the task needs of the deployment
    (:func:`check_identity`, :func:`check_faults`)."""
    effective = deployment.options
    check_identity(task, effective.identity)
    check_faults(task, effective.nodes, effective.db)
