"""Create a pool of projects and users in a local Keystone before it starts.

Rally's ``users`` context creates each user through the API with six requests
(domain lookups, ``POST /v3/users``, role lookup, role grant, ``GET`` the
user), each validating the admin token. Measured on a 2-core machine against
a stock Keystone on SQLite: 1.44 s per user, so seed 000's 12 x 512 users
would take about two and a half hours (``python -m benchmarks.users_setup``).
This module creates them instead through Keystone's own
managers (``identity_api.create_user``, ``assignment_api.create_grant``), in
the launcher's process, like ``keystone-manage bootstrap`` creates the admin.

All users of a pool share one generated password, hashed once with Keystone's
configured algorithm and rounds: every token request of a user still verifies
the password at the configured cost (what create_token measures), but the
setup pays for one hash, not 6144 (each 0.24 s at Keystone's default bcrypt
cost 12).

The pool (names, ids, the password) is written to a private JSON file (0600)
that the ``keystone_perf_users`` context reads. Run as
``python -m rally_keystone_perf.deploy.user_pool --config-file FILE --size TxU
--auth-url URL --out FILE``, or as the last step of the launcher's
``keystone-manage`` batch (:mod:`.keystone.manage_batch`), after bootstrap,
in the same process: Keystone is then imported once a start.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

POOL_VERSION = 1  # the format keystone_perf_users reads
POOL_ENV = "KEYSTONE_PERF_USER_POOL"  # names the pool file for that context
NAME_PREFIX = "ksp_pool"
MEMBER_ROLE = "member"


def parse_size(text: str) -> tuple[int, int]:
    """``12x512`` -> ``(12, 512)``: tenants and users per tenant."""
    tenants, sep, users = text.lower().partition("x")
    try:
        size = (int(tenants), int(users))
    except ValueError:
        size = (0, 0)
    if not sep or min(size) < 1:
        raise ValueError(
            f"a user pool size is TENANTSxUSERS, e.g. 12x512; got {text!r}"
        )
    return size


def load_keystone(config_files: Sequence[str]) -> Any:
    """Configure Keystone from its config files and load its managers."""
    import keystone.conf  # costly: loads all of Keystone's options (0.8 s)
    from keystone.common import provider_api, sql  # costly: Keystone
    from keystone.server import backends  # costly: Keystone

    keystone.conf.configure()  # as keystone-manage does
    sql.initialize()
    keystone.conf.CONF(
        args=[], project="keystone", default_config_files=list(config_files)
    )
    # This process runs alone while the server is stopped: an in-process cache
    # is coherent here and spares the repeated domain/project/role lookups.
    keystone.conf.CONF.set_override("enabled", True, group="cache")
    keystone.conf.CONF.set_override("backend", "dogpile.cache.memory", group="cache")
    if provider_api.ProviderAPIs.locked:
        # keystone-manage bootstrap ran earlier in this process (the batch of
        # deploy/keystone/manage_batch.py) and registered its managers; its
        # cache regions stay as the batch configured them (in memory)
        provider_api.ProviderAPIs._clear_registry_instances()
    backends.load_backends()
    return provider_api.ProviderAPIs


def _hash_once(password: str) -> None:
    """Make Keystone hash ``password`` once and reuse that hash.

    Every other value is hashed as usual. The hash is Keystone's own, at the
    configured algorithm and rounds, so a token request verifies it at that
    cost.
    """
    from keystone.common import password_hashing  # costly: Keystone

    real = password_hashing.hash_password
    hashed = real(password)

    def hash_password(value: str) -> str:
        return hashed if value == password else real(value)

    password_hashing.hash_password = hash_password


def plan_users(tenants: int, users_per_tenant: int) -> dict[str, Any]:
    """Names (and the password) of users this module creates itself (SQL)."""
    run_id = uuid.uuid4().hex[:8]
    return {
        "run_id": run_id,
        "password": secrets.token_urlsafe(24),
        "tenants": [
            [{"name": f"{NAME_PREFIX}_{run_id}_p{t}_u{u}"} for u in range(per)]
            for t, per in enumerate([users_per_tenant] * tenants)
        ],
    }


def create_pool(
    providers: Any,
    plan: dict[str, Any],
    auth_url: str,
    domain_id: str = "default",
    domain_name: str = "Default",
) -> dict[str, Any]:
    """Create the projects, the users and their grants; return the pool.

    ``plan``: :func:`plan_users`, or users that exist already (with their
    ids: an LDAP directory loaded beforehand, see :mod:`.backends.ldap`),
    which only get their project and role.
    """
    from keystone.common import sql  # costly: Keystone

    password = plan["password"]
    existing = any("id" in user for users in plan["tenants"] for user in users)
    if not existing:
        _hash_once(password)
    roles = providers.role_api.list_roles()
    member = next((r for r in roles if r["name"] == MEMBER_ROLE), None)
    if member is None:
        raise RuntimeError(f"Keystone has no {MEMBER_ROLE!r} role (bootstrap it first)")
    projects: list[dict[str, Any]] = []
    for t_index, planned in enumerate(plan["tenants"]):
        project_id = uuid.uuid4().hex
        name = f"{NAME_PREFIX}_{plan['run_id']}_p{t_index}"
        providers.resource_api.create_project(
            project_id,
            {"id": project_id, "name": name, "domain_id": domain_id, "enabled": True},
        )
        with sql.session_for_write():  # one transaction (and commit) per project
            users = [
                _user_with_grant(
                    providers, user, project_id, member["id"], domain_id, password
                )
                for user in planned
            ]
        projects.append({"id": project_id, "name": name, "users": users})
    # an LDAP user's last_active_at is not Keystone's to keep
    active = None if existing else _mark_active_today(_ids(projects))
    return {
        "version": POOL_VERSION,
        "auth_url": auth_url,
        "domain": domain_name,  # credentials name domains
        "last_active_at": active,
        "password": password,
        "tenants": projects,
    }


def _user_with_grant(
    providers: Any,
    user: dict[str, Any],
    project_id: str,
    role_id: str,
    domain: str,
    password: str,
) -> dict[str, str]:
    """Create ``user`` unless it has an id already; grant it ``role_id``."""
    if "id" not in user:
        user = providers.identity_api.create_user(
            {
                "name": user["name"],
                "domain_id": domain,
                "enabled": True,
                "password": password,
                "default_project_id": project_id,
            }
        )
    providers.assignment_api.create_grant(
        role_id, user_id=user["id"], project_id=project_id
    )
    return {"id": user["id"], "name": user["name"]}


def _ids(projects: list[dict[str, Any]]) -> list[str]:
    return [user["id"] for project in projects for user in project["users"]]


def _mark_active_today(user_ids: list[str]) -> str:
    """Set the users' ``last_active_at`` to today, as a first login would.

    Keystone writes ``last_active_at`` on a user's first authentication of
    the (UTC) day; the pool does it up front in one statement, so no warm-up
    login is needed before a timed load. Returns the date (ISO).
    """
    from keystone.common import sql  # costly: Keystone
    from keystone.identity.backends import sql_model  # costly: Keystone
    from oslo_utils import timeutils  # costly: oslo_utils (40 ms) for the CLI

    today = timeutils.utcnow().date()
    with sql.session_for_write() as session:
        for start in range(0, len(user_ids), 500):
            chunk = user_ids[start : start + 500]
            session.query(sql_model.User).filter(sql_model.User.id.in_(chunk)).update(
                {"last_active_at": today}, synchronize_session=False
            )
    return today.isoformat()


def write_pool(pool: dict[str, Any], out: Path) -> None:
    """Write the pool to ``out``, readable by its owner only."""
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(pool, handle)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: create a pool in the Keystone of the given config files."""
    parser = argparse.ArgumentParser(
        prog="python -m rally_keystone_perf.deploy.user_pool",
        description="Create projects and users in a stopped local Keystone "
        "through its own managers, sharing one password hash, and write them "
        "to a private JSON file for the keystone_perf_users context.",
    )
    parser.add_argument("--config-file", action="append", required=True)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--size", type=parse_size, help="TxU, e.g. 12x512")
    source.add_argument(
        "--plan",
        type=Path,
        help="users that exist already (an LDAP directory's: a JSON file of "
        "ids, names and their password): only projects and grants are made",
    )
    parser.add_argument("--auth-url", required=True, help="the Keystone it serves")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    started = time.monotonic()
    import keystone.conf  # costly: loads all of Keystone's options (0.8 s)

    providers = load_keystone(args.config_file)
    domain = keystone.conf.CONF.identity.default_domain_id
    name = providers.resource_api.get_domain(domain)["name"]
    plan = json.loads(args.plan.read_text()) if args.plan else plan_users(*args.size)
    pool = create_pool(providers, plan, args.auth_url, domain, name)
    pool["seconds"] = round(time.monotonic() - started, 2)  # run.json's figure
    write_pool(pool, args.out)
    count = sum(len(t["users"]) for t in pool["tenants"])
    print(
        f"created {len(pool['tenants'])} projects and {count} users in "
        f"{pool['seconds']:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
