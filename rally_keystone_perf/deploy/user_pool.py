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
--auth-url URL --out FILE``.
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


def create_pool(
    providers: Any,
    tenants: int,
    users_per_tenant: int,
    auth_url: str,
    domain_id: str = "default",
    domain_name: str = "Default",
) -> dict[str, Any]:
    """Create the projects and users; return the pool (with its password)."""
    from keystone.common import sql  # costly: Keystone

    password = secrets.token_urlsafe(24)
    _hash_once(password)
    roles = providers.role_api.list_roles()
    member = next((r for r in roles if r["name"] == MEMBER_ROLE), None)
    if member is None:
        raise RuntimeError(f"Keystone has no {MEMBER_ROLE!r} role (bootstrap it first)")
    run_id = uuid.uuid4().hex[:8]
    projects: list[dict[str, Any]] = []
    for t_index in range(tenants):
        project_id = uuid.uuid4().hex
        name = f"{NAME_PREFIX}_{run_id}_p{t_index}"
        providers.resource_api.create_project(
            project_id,
            {"id": project_id, "name": name, "domain_id": domain_id, "enabled": True},
        )
        users = []
        with sql.session_for_write():  # one transaction (and commit) per project
            for u_index in range(users_per_tenant):
                user = providers.identity_api.create_user(
                    {
                        "name": f"{NAME_PREFIX}_{run_id}_p{t_index}_u{u_index}",
                        "domain_id": domain_id,
                        "enabled": True,
                        "password": password,
                        "default_project_id": project_id,
                    }
                )
                providers.assignment_api.create_grant(
                    member["id"], user_id=user["id"], project_id=project_id
                )
                users.append({"id": user["id"], "name": user["name"]})
        projects.append({"id": project_id, "name": name, "users": users})
    active = _mark_active_today([u["id"] for p in projects for u in p["users"]])
    return {
        "version": POOL_VERSION,
        "auth_url": auth_url,
        "domain": domain_name,  # credentials name domains
        "last_active_at": active,
        "password": password,
        "tenants": projects,
    }


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
    parser.add_argument("--size", type=parse_size, required=True, help="e.g. 12x512")
    parser.add_argument("--auth-url", required=True, help="the Keystone it serves")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    started = time.monotonic()
    import keystone.conf  # costly: loads all of Keystone's options (0.8 s)

    providers = load_keystone(args.config_file)
    domain = keystone.conf.CONF.identity.default_domain_id
    name = providers.resource_api.get_domain(domain)["name"]
    tenants, per_tenant = args.size
    pool = create_pool(providers, tenants, per_tenant, args.auth_url, domain, name)
    write_pool(pool, args.out)
    count = sum(len(t["users"]) for t in pool["tenants"])
    print(
        f"created {len(pool['tenants'])} projects and {count} users in "
        f"{time.monotonic() - started:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
