"""The plans of the requests a real cloud sends (issue 57), no seed's.

What Horizon and clients read, the logins and validations of automation and
services, tokens of other scopes, and a cloud's mix: each a
:class:`~rally_keystone_perf.tasks.seed_plans.ScenarioPlan` of
:mod:`.generate`'s table, at concurrency 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rally_keystone_perf.tasks.seed_plans import ScenarioPlan


class CloudRead(ScenarioPlan):
    """What Horizon and clients read, with users' or the admin's tokens:
    no seed measured it (issue 57's requests of a real cloud)."""

    def runner(self, concurrency: int, size: str) -> dict[str, Any]:
        times = 2000 if size == "full" else 200
        return {"constant": {"times": times, "concurrency": concurrency}}

    def contexts(self, size: str) -> dict[str, Any]:
        if size == "full":
            return {"keystone_perf_users": {"tenants": 10, "users_per_tenant": 10}}
        return {"keystone_perf_users": {"tenants": 2, "users_per_tenant": 2}}

    def size_note(self, size: str) -> str:
        if size == "full":
            return "2000 times with 10 tenants x 10 users"
        return "200 times with 2 tenants x 2 users"


READS = (
    CloudRead(
        "list-role-assignments",
        "KeystonePerf.list_role_assignments",
        "",
        (4,),
        "A user's role assignments with names, as Horizon asks: one "
        "GET /v3/role_assignments per iteration",
    ),
    CloudRead(
        "list-auth-projects",
        "KeystonePerf.list_auth_projects",
        "",
        (4,),
        "The projects a user's token may scope to: one GET /v3/auth/projects "
        "per iteration",
    ),
    CloudRead(
        "get-catalog",
        "KeystonePerf.get_catalog",
        "",
        (4,),
        "A token's service catalog: one GET /v3/auth/catalog per iteration",
    ),
)


@dataclass(frozen=True)
class CloudVariant(CloudRead):
    """A scenario of a real cloud's requests with arguments and contexts of
    its own (each context with its defaults)."""

    scenario_args: tuple[tuple[str, Any], ...] = ()
    extra_contexts: tuple[str, ...] = ()
    # contexts with a configuration: (name, its config)
    configured_contexts: tuple[tuple[str, Any], ...] = ()

    def args(self) -> dict[str, Any]:
        return dict(self.scenario_args)

    def contexts(self, size: str) -> dict[str, Any]:
        extra: dict[str, Any] = {name: {} for name in self.extra_contexts}
        extra.update(self.configured_contexts)
        return {**super().contexts(size), **extra}


APP_CREDENTIALS = "keystone_perf_app_credentials"
SERVICE_USER = "keystone_perf_service_user"
SERVICE_NOTE = (
    "Validates as keystonemiddleware does: a service user's token, "
    "OpenStack-Identity-Access-Rules: 1, catalog included"
)
LOGINS = (
    CloudVariant(
        "authenticate-application-credential",
        "KeystonePerf.authenticate_application_credential",
        "",
        (4,),
        "Automation's login: one POST /v3/auth/tokens with an application "
        "credential per iteration",
    ),
    CloudVariant(
        "validate-app-credential-token",
        "KeystonePerf.validate_token",
        "",
        (4,),
        "Validation of application-credential tokens by the admin: one "
        "GET /v3/auth/tokens per iteration",
        scenario_args=(("token_kind", "application_credential"),),
        extra_contexts=(APP_CREDENTIALS,),
    ),
    CloudVariant(
        "validate-token-service",
        "KeystonePerf.validate_token",
        "",
        (4,),
        "Token validation by a service: one GET /v3/auth/tokens per iteration",
        SERVICE_NOTE + ".",
        scenario_args=(("validator", "service"),),
        extra_contexts=(SERVICE_USER,),
    ),
    CloudVariant(
        "validate-token-service-allow-expired",
        "KeystonePerf.validate_token",
        "",
        (4,),
        "Token validation by a service for a request with a service token: "
        "one GET /v3/auth/tokens?allow_expired=1 per iteration",
        SERVICE_NOTE + ", allow_expired=1.",
        scenario_args=(("validator", "service"), ("allow_expired", True)),
        extra_contexts=(SERVICE_USER,),
    ),
)

SCOPE_ROLES = "keystone_perf_scope_roles"
SCOPES = tuple(
    CloudVariant(
        f"create-token-{scope}-scope",
        "KeystonePerf.create_token",
        "",
        (4,),
        f"Token creation scoped to the {what}: one POST /v3/auth/tokens per iteration",
        f"The {SCOPE_ROLES} context grants each user the reader role on the "
        f"{what} before the load and revokes it after.",
        scenario_args=(("scope", scope),),
        configured_contexts=((SCOPE_ROLES, {"scopes": [scope]}),),
    )
    for scope, what in (("domain", "user's domain"), ("system", "system"))
)

# KeystonePerf.mix's default: validation-heavy, as services validate each
# request reaching them; shares of iterations, in percent
MIX_WEIGHTS = {
    "validate_token": 55,
    "create_token": 10,
    "get_catalog": 10,
    "list_auth_projects": 8,
    "list_role_assignments": 6,
    "authenticate_application_credential": 6,
    "list_projects": 5,
}
MIX = CloudVariant(
    "mix",
    "KeystonePerf.mix",
    "",
    (4,),
    "A cloud's mix: each iteration one operation drawn by weight from a "
    "seeded sequence, its shares within one iteration of the weights",
    "Validation-heavy, as services validate each request reaching them "
    "(weights in percent of iterations); the application-credential logins "
    f"need the {APP_CREDENTIALS} context.",
    scenario_args=(("weights", MIX_WEIGHTS), ("seed", 0)),
    extra_contexts=(APP_CREDENTIALS,),
)
