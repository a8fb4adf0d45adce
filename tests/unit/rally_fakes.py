"""Rally-shaped objects shared by the plugin tests: credentials and contexts."""

from __future__ import annotations

import copy
import json
from typing import Any

from rally import plugins
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


def scenario_context(
    iteration: int = 1,
    tenants: int = 1,
    users_per_tenant: int = 1,
    tokens_per_user: int = 2,
    pool: bool = True,
    admin_token: str | None = ADMIN_TOKEN,
) -> dict[str, Any]:
    """The context Rally hands one iteration of an OpenStack scenario."""
    users, tenant_map = users_and_tenants(tenants, users_per_tenant)
    ctx: dict[str, Any] = {
        "task": {"uuid": TASK_UUID},
        "owner_id": TASK_UUID,
        "admin": {"credential": credential("admin", "admin")},
        "users": users,
        "tenants": tenant_map,
        "user_choice_method": "round_robin",
        "iteration": iteration,
    }
    if pool:
        ctx["keystone_perf_tokens"] = {
            "admin": admin_token,
            "users": {
                user["id"]: [
                    f"{user['id']}-T{k}" for k in range(1, tokens_per_user + 1)
                ]
                for user in users
            },
        }
    return copy.deepcopy(ctx)


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
