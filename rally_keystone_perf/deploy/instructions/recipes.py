"""Each scenario's requests, for a replay in one process.

A recipe mirrors its scenario's ``run()``: the same client calls, so the
same requests (bodies, headers) as the timed ones, on a client whose
transport counts them. What the scenario's contexts do before the load
(tokens issued, revocation events added) is done here first on a client
whose requests are not counted. ``KeystonePerf.boot_server`` has no recipe:
its work is Nova's as much as Keystone's.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rally_keystone_perf.client import weighted
from rally_keystone_perf.client.keystone_admin import (
    DEFAULT_SCOPE_ROLE,
    AppCredential,
    grant_target,
    scope_body,
)
from rally_keystone_perf.client.keystone_v3 import IdentityClient, PasswordUser

Step = Callable[[int], None]  # one iteration, by its number (0, 1, ...)
TOKENS = "keystone_perf_tokens"
REVOCATIONS = "keystone_perf_revocations"
SERVICE_ROLE = "service"
SCOPE_ROLES = "keystone_perf_scope_roles"


Recipe = Callable[["Clients", dict[str, Any], dict[str, Any]], Step]


class RecipeError(Exception):
    """No recipe for this workload; the message says why."""


@dataclass(frozen=True)
class Clients:
    """The counted client, the uncounted one, and who can log in."""

    counted: IdentityClient
    setup: IdentityClient
    admin: PasswordUser
    users: Sequence[PasswordUser]


def context_config(contexts: dict[str, Any], name: str) -> dict[str, Any]:
    """A workload's context config by name, with or without ``@platform``."""
    for key, config in contexts.items():
        if key.split("@")[0] == name:
            return dict(config or {})
    return {}


def create_token(
    clients: Clients, args: dict[str, Any], contexts: dict[str, Any]
) -> Step:
    """``KeystonePerf.create_token``: one password token per iteration,
    users round robin (Rally's default); scoped to a domain or the system
    after the ``keystone_perf_scope_roles`` context's grants."""
    scope = args.get("scope", "project")
    unscoped = scope == "unscoped"
    users = clients.users
    for user in users:  # the context's warm-up login (last_active_at)
        clients.setup.create_token(user, unscoped=unscoped)
    scopes: list[dict[str, Any] | None] = [None] * len(users)
    if scope in ("domain", "system"):
        scopes = scope_grants(clients, scope, context_config(contexts, SCOPE_ROLES))

    def step(number: int) -> None:
        which = number % len(users)
        clients.counted.create_token(
            users[which], unscoped=unscoped, scope=scopes[which]
        )

    return step


def scope_grants(
    clients: Clients, scope: str, config: dict[str, Any]
) -> list[dict[str, Any] | None]:
    """The ``keystone_perf_scope_roles`` context's grants (its ``role``,
    reader by default, on each user's domain or the system; uncounted, left
    to the replay's database as the users are) and each user's token scope."""
    admin = clients.setup.create_token(clients.admin)
    name = config.get("role", DEFAULT_SCOPE_ROLE)
    role = clients.setup.role_id(admin, name)
    if role is None:
        raise RecipeError(f"the replay's Keystone has no role {name!r}")
    made: list[dict[str, Any] | None] = []
    for user in clients.users:
        token = clients.setup.create_token(user)
        user_id = clients.setup.validate_token(token, token)["user"]["id"]
        domain = clients.setup.user_domain_id(admin, user_id)
        clients.setup.grant_role(admin, grant_target(scope, domain), user_id, role)
        made.append(scope_body(scope, domain))
    return made


def app_credentials(clients: Clients) -> list[AppCredential]:
    """The ``keystone_perf_app_credentials`` context's: one application
    credential per user, made by the user (uncounted). Named apart on every
    replay (a user's credentials' names are unique); left to the replay's
    database, as the users are."""
    made = []
    for user in clients.users:
        token = clients.setup.create_token(user)
        user_id = clients.setup.validate_token(token, token)["user"]["id"]
        name = f"ksp_count_{secrets.token_hex(4)}"
        made.append(clients.setup.create_application_credential(token, user_id, name))
    return made


def service_token(clients: Clients, admin: str) -> str:
    """The ``keystone_perf_service_user`` context's user (a project, a user
    with the ``service`` role on it, uncounted) and its token."""
    name = f"ksp_count_{secrets.token_hex(4)}"
    password = secrets.token_urlsafe(16)
    project = clients.setup.create_project(admin, name)
    user = clients.setup.create_user(admin, name, password, default_project_id=project)
    role = clients.setup.role_id(admin, SERVICE_ROLE)
    if role is None:
        raise RecipeError(f"the replay's Keystone has no role {SERVICE_ROLE!r}")
    clients.setup.grant_project_role(admin, project, user, role)
    return clients.setup.create_token(PasswordUser(name, password, project_name=name))


def authenticate_application_credential(
    clients: Clients, _: dict[str, Any], __: dict[str, Any]
) -> Step:
    """``KeystonePerf.authenticate_application_credential``: each user's
    application credential in turn."""
    made = app_credentials(clients)

    def step(number: int) -> None:
        clients.counted.authenticate_application_credential(made[number % len(made)])

    return step


def validate_token(
    clients: Clients, args: dict[str, Any], contexts: dict[str, Any]
) -> Step:
    """``KeystonePerf.validate_token``: each user's pre-issued tokens (by
    password or application credential) in turn, validated with the admin
    token, the token itself, or a service user's token as keystonemiddleware
    sends it."""
    per_user = int(context_config(contexts, TOKENS).get("tokens_per_user", 1))
    users = clients.users
    if args.get("token_kind", "password") == "application_credential":
        issue = clients.setup.authenticate_application_credential
        tokens = [
            [issue(app).value for _ in range(per_user)]
            for app in app_credentials(clients)
        ]
    else:
        tokens = [
            [clients.setup.create_token(u) for _ in range(per_user)] for u in users
        ]
    admin = clients.setup.create_token(clients.admin)
    validator = args.get("validator", "admin")
    auth = {"admin": admin, "self": None}.get(validator)
    if validator == "service":
        auth = service_token(clients, admin)
    allow_expired = bool(args.get("allow_expired", False))

    def step(number: int) -> None:
        visit = number // len(users)
        subject = tokens[number % len(users)][visit % per_user]
        clients.counted.validate_token(
            auth or subject,
            subject,
            access_rules=validator == "service",
            allow_expired=allow_expired,
        )

    return step


def list_projects(clients: Clients, _: dict[str, Any], __: dict[str, Any]) -> Step:
    """``KeystonePerf.list_projects`` with the admin token."""
    admin = clients.setup.create_token(clients.admin)

    def step(number: int) -> None:
        clients.counted.list_projects(admin)

    return step


def list_role_assignments(
    clients: Clients, args: dict[str, Any], _: dict[str, Any]
) -> Step:
    """``KeystonePerf.list_role_assignments`` with the admin token, of each
    user in turn (their IDs read before, uncounted) or of all."""
    admin = clients.setup.create_token(clients.admin)
    ids: list[str | None] = [None]
    if args.get("of", "user") == "user":
        ids = [
            clients.setup.validate_token(admin, clients.setup.create_token(user))[
                "user"
            ]["id"]
            for user in clients.users
        ]
    effective = bool(args.get("effective", True))
    names = bool(args.get("include_names", True))

    def step(number: int) -> None:
        user_id = ids[number % len(ids)]
        clients.counted.list_role_assignments(admin, user_id, effective, names)

    return step


def _with_user_tokens(read: Callable[[IdentityClient, str], object]) -> Recipe:
    """A recipe that reads with each user's pre-issued token in turn."""

    def recipe(clients: Clients, _: dict[str, Any], __: dict[str, Any]) -> Step:
        tokens = [clients.setup.create_token(user) for user in clients.users]

        def step(number: int) -> None:
            read(clients.counted, tokens[number % len(tokens)])

        return step

    return recipe


def list_revocation_events(
    clients: Clients, _: dict[str, Any], contexts: dict[str, Any]
) -> Step:
    """``KeystonePerf.list_revocation_events``, after the revocations
    context's ``events`` (each a token minted by rescoping, then revoked)."""
    admin = clients.setup.create_token(clients.admin)
    for _event in range(int(context_config(contexts, REVOCATIONS).get("events", 0))):
        token = clients.setup.rescope_token(admin)
        clients.setup.revoke_token(admin, token)

    def step(number: int) -> None:
        clients.counted.list_revocation_events(admin)

    return step


def revoke_token(clients: Clients, _: dict[str, Any], __: dict[str, Any]) -> Step:
    """``KeystonePerf.revoke_token``: a user's token issued, then revoked by
    itself (both requests counted, as both are timed)."""
    users = clients.users

    def step(number: int) -> None:
        token = clients.counted.create_token(users[number % len(users)])
        clients.counted.revoke_token(token, token)

    return step


def create_delete_user(
    clients: Clients, args: dict[str, Any], _: dict[str, Any]
) -> Step:
    """``KeystonePerf.create_delete_user`` with the admin token; names and
    passwords of one length, as Rally's generated ones."""
    admin = clients.setup.create_token(clients.admin)
    domain = args.get("domain_id", "default")

    def step(number: int) -> None:
        name = f"ksp_count_{number:08d}"
        user_id = clients.counted.create_user(
            admin, name, f"pw-{number:018d}", domain_id=domain
        )
        clients.counted.delete_user(admin, user_id)

    return step


RECIPES: dict[str, Recipe] = {
    "KeystonePerf.create_token": create_token,
    "KeystonePerf.authenticate_application_credential": (
        authenticate_application_credential
    ),
    "KeystonePerf.validate_token": validate_token,
    "KeystonePerf.list_projects": list_projects,
    "KeystonePerf.list_role_assignments": list_role_assignments,
    "KeystonePerf.list_auth_projects": _with_user_tokens(
        lambda client, token: client.list_auth_projects(token)
    ),
    "KeystonePerf.get_catalog": _with_user_tokens(
        lambda client, token: client.get_catalog(token)
    ),
    "KeystonePerf.list_revocation_events": list_revocation_events,
    "KeystonePerf.revoke_token": revoke_token,
    "KeystonePerf.create_delete_user": create_delete_user,
}


def mix(clients: Clients, args: dict[str, Any], contexts: dict[str, Any]) -> Step:
    """``KeystonePerf.mix``: each weighted operation's recipe made first (its
    set-up uncounted), then iteration N the N-th term's step, as the mix
    draws it (:mod:`rally_keystone_perf.client.weighted`)."""
    weights = args["weights"]
    drawn = weighted.sequence(weights, int(args.get("seed", 0)))
    steps = {
        name: RECIPES[f"KeystonePerf.{name}"](clients, {}, contexts)
        for name in sorted(weights)
    }

    def step(number: int) -> None:
        steps[drawn[number]](number)

    return step


RECIPES["KeystonePerf.mix"] = mix

# scenarios whose every iteration hashes a password (a login, a user's
# creation, an application credential's secret): bcrypt at the options' rounds
HASHING = frozenset(
    {
        "KeystonePerf.create_token",
        "KeystonePerf.revoke_token",
        "KeystonePerf.create_delete_user",
        "KeystonePerf.authenticate_application_credential",
    }
)


def hashes(scenario: str, args: dict[str, Any] | None = None) -> bool:
    """Whether an iteration of ``scenario`` hashes a password (a mix's may)."""
    if scenario == "KeystonePerf.mix" and args:
        return any(f"KeystonePerf.{op}" in HASHING for op in args["weights"])
    return scenario in HASHING


# requests an iteration sends, where more than one (all are counted)
REQUESTS = {"KeystonePerf.revoke_token": 2, "KeystonePerf.create_delete_user": 2}


def requests_per_iteration(scenario: str, args: dict[str, Any] | None = None) -> float:
    """The requests one iteration of ``scenario`` sends (and counts): a
    mix's, its operations' weighted mean."""
    if scenario == "KeystonePerf.mix" and args:
        weights = args["weights"]
        total = sum(weights.values())
        return (
            sum(w * REQUESTS.get(f"KeystonePerf.{op}", 1) for op, w in weights.items())
            / total
        )
    return REQUESTS.get(scenario, 1)


def recipe(scenario: str) -> Recipe:
    """The recipe of ``scenario``; :class:`RecipeError` when it has none."""
    try:
        return RECIPES[scenario]
    except KeyError:
        raise RecipeError(
            f"{scenario}: no instruction count (counted scenarios: "
            f"{', '.join(sorted(RECIPES))}; their work is Keystone's alone)"
        ) from None
