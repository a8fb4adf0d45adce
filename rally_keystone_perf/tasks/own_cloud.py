"""What a task would do to someone else's cloud, decided before any request.

The plan names, per workload, what it creates and deletes, what stays
behind by design (revocation events; users' ``last_active_at``), the
concurrency and rate it puts on the target, and whether it needs the
admin role or the ``OS-REVOKE`` API, and the role grants the domain- and
system-scope tasks make. ``run --os-cloud`` prints it and refuses a task
that writes unless ``--allow-writes`` is given, and one that grants a role
on the system unless ``--allow-system-grant`` is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rally_keystone_perf.tasks.model import TaskFile, TaskFileError

USER_CONTEXTS = ("users", "keystone_perf_users")
# contexts that create nothing on the cloud (tokens expire; cleanup removes)
READ_ONLY_CONTEXTS = ("keystone_perf_tokens", "admin_cleanup", "cleanup")
REVOCATIONS_CONTEXT = "keystone_perf_revocations"
SCOPE_ROLES_CONTEXT = "keystone_perf_scope_roles"
SYSTEM_GRANT_FLAG = "--allow-system-grant"
APP_CREDENTIALS_SCENARIO = "KeystonePerf.authenticate_application_credential"
APP_CREDENTIALS_CONTEXT = "keystone_perf_app_credentials"
# after a stopped run: Keystone deletes a user's credentials with the user
APP_CREDENTIALS_GONE = (
    "after a stopped run, those of users the run created go with the users"
)
# contexts that create something per workload and delete it at its end
CONTEXT_WRITES = {
    APP_CREDENTIALS_CONTEXT: (
        "{users} application credential(s), one per user, deleted at the "
        "workload's end (context {name}; {gone})"
    ),
    "keystone_perf_service_user": (
        "1 service user and 1 project, the user granted the service role, "
        "deleted at the workload's end (context {name})"
    ),
}
# contexts and hooks that act on the suite's own servers, not on a cloud
LOCAL_ONLY = {
    "keystone_perf_trace": "needs the server's OSProfiler and the suite's redis",
    "keystone_perf_fault": "acts on the processes of the suite's own Keystone",
}
# scenario -> (what its iterations create, whether it is deleted after)
SCENARIO_WRITES = {
    "KeystonePerf.create_delete_user": (
        "{n} users, each deleted in its iteration",
        True,
    ),
    "KeystonePerf.revoke_token": (
        "{n} tokens revoked, each adding revocation events",
        False,
    ),
    # its own context's (keystone_perf_app_credentials), whether listed or not
    APP_CREDENTIALS_SCENARIO: (
        "one application credential per user, made before the load, deleted "
        "at its end (" + APP_CREDENTIALS_GONE + ")",
        True,
    ),
    "KeystonePerf.boot_server": (
        "{n} servers booted, each deleted in its iteration (Rally's cleanup "
        "and the sweep delete any a failure leaves)",
        True,
    ),
}
BOOT_SCENARIO = "KeystonePerf.boot_server"
MIX_SCENARIO = "KeystonePerf.mix"
# a mix's operations that send with the admin's token
MIX_ADMIN = (
    "validate_token",
    "list_projects",
    "list_role_assignments",
    "list_revocation_events",
    "create_delete_user",
)
READ_SCENARIOS = (
    "KeystonePerf.create_token",
    "KeystonePerf.validate_token",
    "KeystonePerf.list_projects",
    "KeystonePerf.list_revocation_events",
    "KeystonePerf.list_role_assignments",
    "KeystonePerf.list_auth_projects",
    "KeystonePerf.get_catalog",
)
ADMIN_SCENARIOS = (
    "KeystonePerf.create_delete_user",
    "KeystonePerf.list_projects",
    "KeystonePerf.list_revocation_events",
    "KeystonePerf.list_role_assignments",
)
REVOCATION_SCENARIOS = (
    "KeystonePerf.revoke_token",
    "KeystonePerf.list_revocation_events",
)
CLOSED_LOOP = (
    "concurrency N: N clients each waiting for its answer before the next "
    "request, as fast as the target answers (no rate cap)"
)
RATED = (
    "at R/s: iterations started at that rate whatever the answers, at most "
    "the in-flight cap at once (the rest dropped, not sent)"
)
STAYS = (
    "revocation events cannot be deleted: each one is checked by every token "
    "validation on the cloud until the revoked token would have expired",
    "every token issued updates its user's last_active_at (when the cloud's "
    "[security_compliance] tracks it) and emits an identity.authenticate "
    "notification",
)


class PlanError(TaskFileError):
    """The task cannot run against someone else's cloud at all."""


@dataclass
class WorkloadPlan:
    """One workload's effect on the target."""

    task: str
    name: str
    load: str
    users_wanted: int
    rated: bool = False  # a rate sets the load, not a concurrency
    writes: list[str] = field(default_factory=list)
    stays: list[str] = field(default_factory=list)
    admin: bool = False
    revocation: bool = False
    boot: dict[str, Any] | None = None  # boot_server's arguments: to check
    grants: list[str] = field(default_factory=list)  # role grants it makes
    system_grant: bool = False  # one of them on the system


@dataclass
class Plan:
    """Every workload's effect, and where its users come from."""

    workloads: list[WorkloadPlan]
    existing_users: int  # users given to the run (0: created through the API)
    users_source: str  # what the plan says about them

    @property
    def writes(self) -> bool:
        """True when a workload creates, deletes or revokes anything."""
        return any(w.writes or w.stays or w.grants for w in self.workloads)

    def needing_admin(self) -> list[str]:
        return sorted({w.name for w in self.workloads if w.admin})

    def boots(self) -> list[tuple[str, dict[str, Any]]]:
        """``(task: workload, its arguments)`` of every boot_server workload."""
        return [
            (f"{w.task}: {w.name}", w.boot)
            for w in self.workloads
            if w.boot is not None
        ]

    def needing_revocation(self) -> list[str]:
        return sorted({w.name for w in self.workloads if w.revocation})

    def role_grants(self) -> list[str]:
        """``task: workload: grant`` of every role grant the workloads make."""
        return [f"{w.task}: {w.name}: {g}" for w in self.workloads for g in w.grants]

    def granting_system(self) -> list[str]:
        return sorted({w.name for w in self.workloads if w.system_grant})

    def lines(self) -> list[str]:
        """The plan as printed before any request."""
        out = [f"users: {self.users_source}"]
        for work in self.workloads:
            kind = (
                "writes" if work.writes or work.stays or work.grants else "reads only"
            )
            out.append(f"{work.task}: {work.name}, {work.load}: {kind}")
            out += [f"    creates: {line}" for line in work.writes]
            out += [f"    grants: {line}" for line in work.grants]
            out += [f"    stays behind: {line}" for line in work.stays]
        kinds = {w.rated for w in self.workloads}
        out += [f"load: {RATED if rated else CLOSED_LOOP}" for rated in sorted(kinds)]
        out += [f"by design: {line}" for line in STAYS]
        return out


def _load(workload: dict[str, Any]) -> str:
    """The count or duration, concurrency and rate a workload's runner sets."""
    runner, kind = workload["runner"], workload["runner_type"]
    count = runner.get("times")
    length = f"{count} iterations" if count else f"{runner.get('duration')} s"
    if "rps" in runner:
        cap = runner.get("max_concurrency", "no cap on those")
        return f"{length} at {runner['rps']}/s ({kind}; in flight: {cap})"
    if "rate" in runner:  # the open-model runner's
        cap = runner.get("max_in_flight")
        return f"{length} at {runner['rate']}/s ({kind}; in flight: {cap})"
    return f"{length} at concurrency {runner.get('concurrency', 1)} ({kind})"


def users_wanted(workload: dict[str, Any]) -> int:
    """Users a workload's users context asks for (0: none)."""
    wanted = 0
    for name, config in workload["contexts"].items():
        if name.split("@")[0] in USER_CONTEXTS:
            size = config.get("tenants", 1) * config.get("users_per_tenant", 1)
            wanted = max(wanted, size)
    return wanted


def _iterations(workload: dict[str, Any]) -> str:
    times = workload["runner"].get("times")
    return str(times) if times else "(one per iteration)"


def _context_effects(
    plan: WorkloadPlan, workload: dict[str, Any], created: bool
) -> None:
    """What the workload's contexts create, or why they cannot run there."""
    for full_name, config in workload["contexts"].items():
        name = full_name.split("@")[0]
        if name in LOCAL_ONLY:
            raise PlanError(f"{plan.task}: {plan.name}: {name} {LOCAL_ONLY[name]}")
        if name in USER_CONTEXTS:
            if created and plan.users_wanted:
                tenants = config.get("tenants", 1)
                plan.writes.append(
                    f"{plan.users_wanted} user(s) and {tenants} project(s), "
                    f"deleted at the workload's end (context {name})"
                )
                plan.admin = True
        elif name == APP_CREDENTIALS_CONTEXT and plan.name == APP_CREDENTIALS_SCENARIO:
            continue  # the scenario's own context, said by the scenario
        elif name in CONTEXT_WRITES:
            users = plan.users_wanted or "the users'"
            plan.writes.append(
                CONTEXT_WRITES[name].format(
                    users=users, name=name, gone=APP_CREDENTIALS_GONE
                )
            )
            plan.admin |= name == "keystone_perf_service_user"
        elif name == SCOPE_ROLES_CONTEXT:
            _grant_effects(plan, config)
        elif name == REVOCATIONS_CONTEXT:
            events = int(config.get("events", 0))
            plan.stays.append(
                f"about {events} revocation events: {(events + 1) // 2} tokens "
                "revoked before the load"
            )
            plan.admin = plan.revocation = True
        elif name not in READ_ONLY_CONTEXTS:
            plan.writes.append(
                f"context {name}: unknown to the suite, counted as writing"
            )
    for hook in workload.get("hooks", []):
        action = hook.get("action") or ("",)
        name = str(action[0]).split("@")[0]
        if name in LOCAL_ONLY:
            raise PlanError(f"{plan.task}: {plan.name}: hook {name} {LOCAL_ONLY[name]}")


def _grant_effects(plan: WorkloadPlan, config: dict[str, Any]) -> None:
    """The role grants of the ``keystone_perf_scope_roles`` context."""
    role = config.get("role", "reader")
    users = f"{plan.users_wanted} user(s)" if plan.users_wanted else "the users"
    for scope in config.get("scopes", ["domain"]):
        where = "the system" if scope == "system" else "each one's own domain"
        plan.grants.append(
            f"role {role!r} to {users} on {where}, revoked at the workload's "
            f"end (context {SCOPE_ROLES_CONTEXT})"
        )
        plan.system_grant |= scope == "system"
    plan.admin = True


def _mix_effects(plan: WorkloadPlan, workload: dict[str, Any]) -> None:
    """A mix's effects: its weighted operations' (iterations shared by weight)."""
    weights = workload.get("args", {}).get("weights") or {}
    total = sum(weights.values()) or 1
    times = workload["runner"].get("times")
    for operation in sorted(weights):
        scenario = f"KeystonePerf.{operation}"
        # application credentials: the context's, said by the context
        if scenario in SCENARIO_WRITES and scenario != APP_CREDENTIALS_SCENARIO:
            what, deleted = SCENARIO_WRITES[scenario]
            share = weights[operation] / total  # of iterations, within one
            count = f"{round(times * share)}" if times else f"{share:.0%} of the"
            (plan.writes if deleted else plan.stays).append(
                f"mix, {operation}: {what.format(n=count)}"
            )
    plan.admin |= any(op in MIX_ADMIN for op in weights)
    plan.revocation |= any(
        f"KeystonePerf.{op}" in REVOCATION_SCENARIOS for op in weights
    )


def _scenario_effects(plan: WorkloadPlan, workload: dict[str, Any]) -> None:
    name = plan.name
    if name == MIX_SCENARIO:
        _mix_effects(plan, workload)
        return
    if name == BOOT_SCENARIO:  # its image, flavor, networks: checked on the cloud
        plan.boot = dict(workload.get("args", {}))
    if name in SCENARIO_WRITES:
        what, deleted = SCENARIO_WRITES[name]
        (plan.writes if deleted else plan.stays).append(
            what.format(n=_iterations(workload))
        )
    elif name not in READ_SCENARIOS:
        plan.writes.append(f"scenario {name}: unknown to the suite, counted as writing")
    validator = workload.get("args", {}).get("validator", "admin")
    plan.admin |= name in ADMIN_SCENARIOS or (
        name == "KeystonePerf.validate_token" and validator == "admin"
    )
    plan.revocation |= name in REVOCATION_SCENARIOS


def _workload_plans(tasks: Sequence[TaskFile], created: bool) -> list[WorkloadPlan]:
    plans = []
    for task in tasks:
        for workload in task.workloads():
            plan = WorkloadPlan(
                task=task.path.name,
                name=workload["name"],
                load=_load(workload),
                users_wanted=users_wanted(workload),
                rated=any(k in workload["runner"] for k in ("rps", "rate")),
            )
            _context_effects(plan, workload, created)
            _scenario_effects(plan, workload)
            plans.append(plan)
    return plans


def build_plan(
    tasks: Sequence[TaskFile], given_users: int = 0, allow_system_grant: bool = False
) -> Plan:
    """The plan of ``tasks`` on a cloud; ``given_users``: existing test users.

    Users come from, in order: the existing users given (nothing created;
    a workload asking for more runs with them); the cloud's own user, when
    no workload asks for more than one user and none writes anything else;
    else Rally's users context creates them for each workload.

    :raises PlanError: a workload that cannot run on someone else's cloud,
        or one that grants a role on the system (its users could then act
        on the whole cloud, by that role) without ``allow_system_grant``.
    """
    if given_users:
        source = f"the {given_users} existing users given (none created)"
        plan = Plan(_workload_plans(tasks, False), given_users, source)
    else:
        reading = _workload_plans(tasks, False)
        if max((w.users_wanted for w in reading), default=0) <= 1 and not any(
            w.writes or w.stays or w.grants for w in reading
        ):
            source = "the cloud's own user from clouds.yaml (none created)"
            return Plan(reading, 1, source)
        source = "created through the API for each workload, deleted at its end"
        plan = Plan(_workload_plans(tasks, True), 0, source)
    granting = plan.granting_system()
    if granting and not allow_system_grant:
        raise PlanError(
            f"{', '.join(granting)}: the task grants its users a role on the "
            "system (for system-scoped tokens), which lets them act on the "
            f"whole cloud by that role until it is revoked at the workload's "
            f"end; give {SYSTEM_GRANT_FLAG} to allow it"
        )
    return plan


def task_names(plans: Iterable[WorkloadPlan]) -> list[str]:
    """The task files a plan covers, in order."""
    return list(dict.fromkeys(p.task for p in plans))
