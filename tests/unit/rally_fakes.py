"""Rally-shaped objects shared by the unit tests: credentials, contexts, tasks."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from rally import exceptions, plugins
from rally_openstack.common.credential import OpenStackCredential

AUTH_URL = "http://keystone.test:5000/v3"
TOKENS_URL = f"{AUTH_URL}/auth/tokens"
TASK_UUID = "58289582-3128-4858-8217-9628a4e4e333"
ADMIN_TOKEN = "ADMINTOK"

# Rally registers its options (e.g. [openstack] enable_profiler, read by every
# OpenStackScenario) and our plugins when its plugins are loaded.
plugins.load()


def credential(username: str, project: str) -> OpenStackCredential:
    """A Rally OpenStack credential whose password is ``<username>-pw``."""
    return OpenStackCredential(
        auth_url=AUTH_URL,
        username=username,
        password=f"{username}-pw",
        tenant_name=project,
        user_domain_name="Default",
        project_domain_name="Default",
    )


def users_and_tenants(
    tenants: int = 1, users_per_tenant: int = 1
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """What Rally's ``users`` context stores: ``users`` and ``tenants``."""
    users: list[dict[str, Any]] = []
    tenant_map: dict[str, dict[str, Any]] = {}
    for t in range(1, tenants + 1):
        tenant_id = f"t{t}"
        members = [
            {
                "id": f"u{t}-{n}",
                "credential": credential(f"user{t}-{n}", f"project{t}"),
                "tenant_id": tenant_id,
            }
            for n in range(1, users_per_tenant + 1)
        ]
        users.extend(members)
        tenant_map[tenant_id] = {
            "id": tenant_id,
            "name": f"project{t}",
            "users": members,
        }
    return users, tenant_map


def users_context(tenants: int = 1, users_per_tenant: int = 1) -> dict[str, Any]:
    """The context Rally builds for a task with an admin and ``users``."""
    users, tenant_map = users_and_tenants(tenants, users_per_tenant)
    return {
        "task": {"uuid": TASK_UUID},
        "owner_id": TASK_UUID,
        "admin": {"credential": credential("admin", "admin")},
        "users": users,
        "tenants": tenant_map,
    }


def scenario_context(
    iteration: int = 1,
    tenants: int = 1,
    users_per_tenant: int = 1,
    tokens_per_user: int = 2,
    pool: bool = True,
    admin_token: str | None = ADMIN_TOKEN,
) -> dict[str, Any]:
    """The context Rally hands one iteration of an OpenStack scenario."""
    ctx = users_context(tenants, users_per_tenant)
    ctx["user_choice_method"] = "round_robin"
    ctx["iteration"] = iteration
    if pool:
        ctx["keystone_perf_tokens"] = {
            "admin": admin_token,
            "users": {
                user["id"]: [
                    f"{user['id']}-T{k}" for k in range(1, tokens_per_user + 1)
                ]
                for user in ctx["users"]
            },
        }
    return copy.deepcopy(ctx)


def atomic_names(owner: Any) -> list[str]:
    """The names of the atomic actions a scenario (or timer owner) recorded."""
    return [a["name"] for a in owner.atomic_actions()]


def run_refused(scen: Any, requests_mock: Any, **kwargs: Any) -> str:
    """Run ``scen``, which must fail before sending anything; Rally's message."""
    with pytest.raises(exceptions.RallyException) as err:
        scen.run(**kwargs)
    assert requests_mock.call_count == 0
    return err.value.format_message()


def run_failing(
    scen: Any, error: type[Exception], requests_mock: Any, requests: int
) -> list[dict[str, Any]]:
    """Run ``scen``, which must raise ``error`` after ``requests`` requests.

    Returns the atomic actions it recorded.
    """
    with pytest.raises(error):
        scen.run()
    assert requests_mock.call_count == requests
    return scen.atomic_actions()


def body(request: Any) -> Any:
    """The decoded JSON body of a request seen by requests_mock."""
    return json.loads(request.body)


def password_body(username: str, password: str, project: str | None) -> dict[str, Any]:
    """The exact password-auth body Keystone should receive."""
    auth: dict[str, Any] = {
        "identity": {
            "methods": ["password"],
            "password": {
                "user": {
                    "name": username,
                    "domain": {"name": "Default"},
                    "password": password,
                }
            },
        }
    }
    if project is not None:
        auth["scope"] = {"project": {"name": project, "domain": {"name": "Default"}}}
    return {"auth": auth}


def workload(name: str = "KeystonePerf.list_projects", **fields: Any) -> dict:
    """A small workload of scenario ``name``; ``fields`` replace its keys."""
    return {
        "scenario": {name: {}},
        "runner": {"constant": {"times": 2, "concurrency": 1}},
        "contexts": {"users": {"tenants": 1, "users_per_tenant": 1}},
        **fields,
    }


def task_document(*workloads: dict) -> dict[str, Any]:
    """A Rally v2 task with one subtask per workload."""
    return {
        "version": 2,
        "title": "t",
        "subtasks": [
            {"title": f"s{i}", "workloads": [w]} for i, w in enumerate(workloads)
        ],
    }


def write_task(tmp_path: Path, *workloads: dict, name: str = "task.json") -> Path:
    """``task_document(*workloads)`` written as JSON to ``tmp_path / name``."""
    path = tmp_path / name
    path.write_text(json.dumps(task_document(*workloads)))
    return path
