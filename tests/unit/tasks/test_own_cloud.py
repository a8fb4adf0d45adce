"""Tests for rally_keystone_perf.tasks.own_cloud (the plan before any request)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.tasks.model import TaskFile
from rally_keystone_perf.tasks.own_cloud import PlanError, build_plan

SMOKE_NAMES = [
    "KeystonePerf.authenticate_application_credential",
    "KeystonePerf.create_delete_user",
    "KeystonePerf.create_token",
    "KeystonePerf.get_catalog",
    "KeystonePerf.list_auth_projects",
    "KeystonePerf.list_projects",
    "KeystonePerf.list_revocation_events",
    "KeystonePerf.list_role_assignments",
    "KeystonePerf.revoke_token",
    "KeystonePerf.validate_token",
]


def workload(name: str = "KeystonePerf.list_projects", **fields: Any) -> dict:
    """One small workload of scenario ``name`` with a 1x1 users context."""
    return {
        "scenario": {name: {}},
        "runner": {"constant": {"times": 5, "concurrency": 2}},
        "contexts": {"users": {"tenants": 1, "users_per_tenant": 1}},
        **fields,
    }


def task(tmp_path: Path, *workloads: dict) -> TaskFile:
    """A Rally v2 task of one subtask per workload, written and loaded."""
    document = {
        "version": 2,
        "title": "t",
        "subtasks": [
            {"title": next(iter(w["scenario"])), "workloads": [w]} for w in workloads
        ],
    }
    path = tmp_path / "task.json"
    path.write_text(json.dumps(document))
    return TaskFile.load(path)


def bundled(name: str) -> TaskFile:
    return TaskFile.load(paths.tasks_dir() / name)


def test_smoke_writes_and_creates_its_users() -> None:
    plan = build_plan([bundled("smoke.json")])
    assert plan.writes
    assert plan.existing_users == 0
    assert plan.users_source.startswith("created through the API")
    assert all(any("user(s) and" in line for line in w.writes) for w in plan.workloads)


def test_smoke_needs_admin_and_revocation() -> None:
    plan = build_plan([bundled("smoke.json")])
    assert plan.needing_admin() == SMOKE_NAMES
    assert plan.needing_revocation() == [
        "KeystonePerf.list_revocation_events",
        "KeystonePerf.revoke_token",
    ]


def test_smoke_with_existing_users_creates_none_but_still_writes() -> None:
    plan = build_plan([bundled("smoke.json")], given_users=2)
    assert plan.existing_users == 2
    assert not any("user(s) and" in line for w in plan.workloads for line in w.writes)
    assert plan.writes  # create_delete_user, revoke_token, the revocations context
    assert "KeystonePerf.create_token" not in plan.needing_admin()


def test_a_read_only_task_with_existing_users(tmp_path: Path) -> None:
    users = {"users": {"tenants": 2, "users_per_tenant": 1}}
    plan = build_plan([task(tmp_path, workload(contexts=users))], given_users=3)
    assert not plan.writes
    assert plan.existing_users == 3
    assert plan.users_source == "the 3 existing users given (none created)"
    (work,) = plan.workloads
    assert (work.users_wanted, work.writes, work.stays) == (2, [], [])
    assert work.load == "5 iterations at concurrency 2 (constant)"


def test_the_bundled_project_list_needs_no_user() -> None:
    plan = build_plan([bundled("uwsgi/list-projects-c10-quick.json")])
    assert not plan.writes
    (work,) = plan.workloads
    assert (work.users_wanted, work.writes, work.stays) == (0, [], [])
    assert work.load == "20 s at concurrency 10 (constant_for_duration)"


def test_one_user_wanted_is_the_clouds_own(tmp_path: Path) -> None:
    plan = build_plan([task(tmp_path, workload())])
    assert plan.existing_users == 1
    assert not plan.writes
    assert "cloud's own user" in plan.users_source
    assert plan.needing_admin() == ["KeystonePerf.list_projects"]


@pytest.mark.parametrize(("validator", "admin"), [("admin", True), ("self", False)])
def test_validate_token_needs_admin_as_the_admin_validator(
    tmp_path: Path, validator: str, admin: bool
) -> None:
    scenario = {"KeystonePerf.validate_token": {"validator": validator}}
    plan = build_plan([task(tmp_path, workload(scenario=scenario))])
    assert plan.workloads[0].admin is admin


def test_more_users_than_one_are_created(tmp_path: Path) -> None:
    users = {"users": {"tenants": 2, "users_per_tenant": 3}}
    plan = build_plan([task(tmp_path, workload(contexts=users))])
    assert plan.existing_users == 0
    (work,) = plan.workloads
    assert work.writes == [
        "6 user(s) and 2 project(s), deleted at the workload's end (context users)"
    ]


def test_the_lines_say_what_each_workload_does(tmp_path: Path) -> None:
    plan = build_plan(
        [task(tmp_path, workload(), workload("KeystonePerf.revoke_token"))]
    )
    lines = plan.lines()
    assert lines[0].startswith("users: created through the API")
    assert "task.json: KeystonePerf.list_projects, 5 iterations at " in lines[1]
    assert lines[1].endswith(": writes")  # its users are created
    assert "    stays behind: 5 tokens revoked, each adding revocation events" in lines
    assert lines[-3].startswith("load: concurrency N")


def test_an_rps_runner_is_described_with_its_rate(tmp_path: Path) -> None:
    runner = {"rps": {"times": 10, "rps": 5}}
    plan = build_plan([task(tmp_path, workload(runner=runner))])
    assert plan.workloads[0].load == (
        "10 iterations at 5/s (rps; in flight: no cap on those)"
    )


def test_an_arrival_rate_runner_is_described_with_its_rate(tmp_path: Path) -> None:
    runner = {
        "keystone_perf_arrival_rate": {"duration": 30, "rate": 20, "max_in_flight": 64}
    }
    plan = build_plan([task(tmp_path, workload(runner=runner))])
    assert plan.workloads[0].load == (
        "30 s at 20/s (keystone_perf_arrival_rate; in flight: 64)"
    )
    (load,) = [line for line in plan.lines() if line.startswith("load: ")]
    assert load.startswith("load: at R/s: iterations started at that rate")
    both = build_plan([task(tmp_path, workload(runner=runner), workload())])
    assert len([line for line in both.lines() if line.startswith("load: ")]) == 2


def test_app_credentials_and_a_service_user_are_writes(tmp_path: Path) -> None:
    contexts = {
        "users": {"tenants": 1, "users_per_tenant": 2},
        "keystone_perf_app_credentials": {},
        "keystone_perf_service_user": {},
    }
    scenario = {"KeystonePerf.validate_token": {"validator": "service"}}
    plan = build_plan(
        [task(tmp_path, workload(scenario=scenario, contexts=contexts))],
        given_users=2,
    )
    (work,) = plan.workloads
    assert work.writes[0].startswith(
        "2 application credential(s), one per user, deleted at the workload's end"
    )
    assert work.writes[1].startswith("1 service user and 1 project")
    assert work.admin  # the service user is the admin's to make
    app = "KeystonePerf.authenticate_application_credential"
    for contexts in ({"users": {}}, {"users": {}, "keystone_perf_app_credentials": {}}):
        plan = build_plan([task(tmp_path, workload(app, contexts=contexts))], 1)
        # its own context writes, listed in the task or not, said once
        (line,) = plan.workloads[0].writes
        assert line.startswith("one application credential per user")


def test_an_unknown_context_counts_as_writing(tmp_path: Path) -> None:
    contexts = {"users": {"users_per_tenant": 1}, "roles": ["member"]}
    plan = build_plan([task(tmp_path, workload(contexts=contexts))])
    assert plan.writes
    assert any("context roles: unknown" in w for w in plan.workloads[0].writes)


def test_the_trace_context_cannot_run_on_a_cloud(tmp_path: Path) -> None:
    contexts = {"users": {}, "keystone_perf_trace": {}}
    tasks = [task(tmp_path, workload(contexts=contexts))]
    with pytest.raises(PlanError, match="keystone_perf_trace needs the server's"):
        build_plan(tasks)


def test_a_fault_hook_cannot_run_on_a_cloud() -> None:
    with pytest.raises(PlanError, match="hook keystone_perf_fault acts on"):
        build_plan([bundled("cluster-node-fault.json")], given_users=1)


def test_boot_server_writes_and_hands_its_arguments_to_the_check() -> None:
    boot = bundled("boot-server-c5-quick.json")
    plan = build_plan([boot])
    assert plan.writes
    (line,) = [ln for ln in plan.lines() if "servers booted" in ln]
    assert "10 servers booted, each deleted in its iteration" in line
    ((name, args),) = plan.boots()
    assert name == "boot-server-c5-quick.json: KeystonePerf.boot_server"
    assert args == {"image": {"name": "TestVM"}, "flavor": {"name": "ram64"}}
    assert build_plan([bundled("smoke.json")]).boots() == []


def test_the_plan_lists_the_domain_grants_as_writes() -> None:
    plan = build_plan([bundled("uwsgi/create-token-domain-scope-c4-quick.json")])
    assert plan.writes and not plan.granting_system()
    (grant,) = plan.role_grants()
    assert grant == (
        "create-token-domain-scope-c4-quick.json: KeystonePerf.create_token: "
        "role 'reader' to 4 user(s) on each one's own domain, revoked at the "
        "workload's end (context keystone_perf_scope_roles)"
    )
    assert f"    grants: {grant.split(': ', 2)[2]}" in plan.lines()
    assert "KeystonePerf.create_token" in plan.needing_admin()


def test_a_system_grant_is_refused_unless_allowed() -> None:
    system = [bundled("uwsgi/create-token-system-scope-c4-quick.json")]
    with pytest.raises(PlanError, match="--allow-system-grant"):
        build_plan(system)
    with pytest.raises(PlanError, match="a role on the system"):
        build_plan(system, given_users=2)
    plan = build_plan(system, allow_system_grant=True)
    assert plan.granting_system() == ["KeystonePerf.create_token"]
    assert ["on the system" in g for g in plan.role_grants()] == [True]


def test_a_grant_with_the_cloud_own_user_is_still_planned(tmp_path: Path) -> None:
    roles = {"keystone_perf_scope_roles": {"scopes": ["domain"], "role": "member"}}
    one = workload(
        "KeystonePerf.create_token",
        contexts={"users": {"tenants": 1, "users_per_tenant": 1}, **roles},
    )
    plan = build_plan([task(tmp_path, one)])
    assert plan.users_source.startswith("created through the API")
    assert plan.role_grants()[0].endswith(
        "role 'member' to 1 user(s) on each one's own domain, revoked at the "
        "workload's end (context keystone_perf_scope_roles)"
    )


def test_a_mix_is_planned_by_its_weighted_operations(tmp_path: Path) -> None:
    reads = workload(
        "KeystonePerf.mix",
        contexts={"users": {"tenants": 2, "users_per_tenant": 2}},
    )
    reads["scenario"] = {"KeystonePerf.mix": {"weights": {"get_catalog": 1}}}
    (plan,) = build_plan([task(tmp_path, reads)]).workloads
    assert not plan.stays and not plan.revocation
    assert plan.writes == [
        "4 user(s) and 2 project(s), deleted at the workload's end (context users)"
    ]
    writes = dict(reads)
    writes["scenario"] = {
        "KeystonePerf.mix": {
            "weights": {"revoke_token": 1, "create_delete_user": 1, "list_projects": 5}
        }
    }
    (plan,) = build_plan([task(tmp_path, writes)]).workloads
    assert plan.admin and plan.revocation
    # 5 iterations: 1/7 of them revoke, 1/7 create and delete a user
    assert plan.stays == [
        "mix, revoke_token: 1 tokens revoked, each adding revocation events"
    ]
    assert plan.writes[-1] == (
        "mix, create_delete_user: 1 users, each deleted in its iteration"
    )


def test_the_bundled_mix_is_planned(tmp_path: Path) -> None:
    (plan,) = build_plan([bundled("uwsgi/mix-c4-quick.json")]).workloads
    assert plan.admin and not plan.stays and not plan.revocation
    assert any("application credential(s)" in line for line in plan.writes)
