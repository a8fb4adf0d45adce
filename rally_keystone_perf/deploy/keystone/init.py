"""Keystone's first state: database, keys, admin, user pool, Rally's env spec.

Everything here runs while Keystone is stopped, through its own tools
(``keystone-manage``) or its managers (:mod:`..user_pool`), reading the
config files :func:`.config.config_files` names.
"""

from __future__ import annotations

import contextlib
import grp
import json
import os
import pwd
import re
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy import logtail, services
from rally_keystone_perf.deploy.backends import ldap
from rally_keystone_perf.deploy.builds import runtime
from rally_keystone_perf.deploy.keystone import manage_batch
from rally_keystone_perf.deploy.keystone.config import (
    SECRETS_CONF,
    config_args,
    config_files,
    jws_keys,
)
from rally_keystone_perf.deploy.options import Deployment, LaunchError
from rally_keystone_perf.deploy.rundir import RunDir, write_private_json

ADMIN_USER = "admin"
ADMIN_PROJECT = "admin"
REGION = "RegionOne"
# keystone-manage logs its errors to keystone.log (log_file), not its output
MANAGE_LOGS = ("keystone-manage.log", "keystone.log")
# the batch's line for the step that failed (manage_batch.main)
_FAILED = re.compile(r"^(keystone-manage \S+ failed \(exit -?\d+\))$", re.M)

Progress = Callable[[str], None]


def enable_sqlite_wal(db_file: Path) -> None:
    """Switch a SQLite database to write-ahead logging (a persistent setting).

    With several server processes, WAL lets readers and one writer proceed
    together; together with the connection's busy timeout it is the least lock
    contention SQLite offers.
    """
    with contextlib.closing(sqlite3.connect(db_file)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")


def _bootstrap_args(url: str) -> list[str]:
    return [
        "bootstrap",
        "--bootstrap-username",
        ADMIN_USER,
        "--bootstrap-project-name",
        ADMIN_PROJECT,
        "--bootstrap-role-name",
        "admin",
        "--bootstrap-region-id",
        REGION,
        "--bootstrap-admin-url",
        url,
        "--bootstrap-internal-url",
        url,
        "--bootstrap-public-url",
        url,
    ]


def _jws_step(run: RunDir, owner: list[str]) -> dict[str, Any]:
    """``keystone-manage create_jws_keypair``: it writes both files where it
    runs (:func:`_place_jws_keys` puts them in their repositories).

    ``owner``: its ``--keystone-user`` and ``--keystone-group`` arguments.
    """
    keys = jws_keys(run)
    for repository in ("private", "public"):
        (keys / repository).mkdir(mode=0o700, parents=True, exist_ok=True)
    return {"argv": ["create_jws_keypair", *owner], "cwd": str(keys)}


def _place_jws_keys(run: RunDir) -> None:
    """Each JWS key file to its repository, the private key 0600."""
    keys = jws_keys(run)
    private = keys / "private" / "private.pem"
    (keys / "private.pem").rename(private)
    private.chmod(0o600)
    (keys / "public.pem").rename(keys / "public" / "public.pem")


def interpreter(manage: Path) -> Path:
    """The Python that runs ``manage``: the ``python`` of its venv (beside
    it; uv's scripts start with a ``/bin/sh`` trampoline to it), else the
    Python its ``#!`` line names, else ours."""
    beside = manage.parent / "python"
    if beside.exists():
        return beside
    with open(manage, "rb") as script:
        first = script.readline().decode(errors="replace").strip()
    named = Path(first[2:].strip()) if first.startswith("#!") else None
    if named is not None and named.is_absolute() and named.name.startswith("python"):
        return named
    return Path(sys.executable)


def run_manage_batch(
    run: RunDir,
    manage: Path,
    steps: list[dict[str, Any]],
    env: dict[str, str] | None = None,
) -> None:
    """Run ``keystone-manage`` steps in one process (:mod:`.manage_batch`),
    their output appended to keystone-manage.log."""
    source = Path(manage_batch.__file__).read_text()
    argv = [str(interpreter(manage)), "-c", source]
    argv += [json.dumps(config_args(config_files(run))), json.dumps(steps)]
    code = services.run_logged(
        argv,
        run.logs / "keystone-manage.log",
        env={**services.QUIET_WARNINGS, **(env or {})},
    )
    if code != 0:
        raise LaunchError(
            f"{_failed_step(run, steps, code)}; last lines of its logs:\n"
            f"{logtail.log_tails(run, MANAGE_LOGS)}"
        )


def _failed_step(run: RunDir, steps: list[dict[str, Any]], code: int) -> str:
    """``keystone-manage STEP failed (exit N)``, as the batch's last words
    name it (or every step, if it died before saying)."""
    said = _FAILED.findall((run.logs / "keystone-manage.log").read_text())
    if said:
        return said[-1]
    names = ", ".join(step["argv"][0] for step in steps)
    return f"keystone-manage failed (exit {code}; its steps: {names})"


def init_keystone(
    run: RunDir,
    manage: Path,
    url: str,
    password: str,
    user: str | None = None,
    token_provider: str = "fernet",
) -> None:
    """Create the database, the keys and the admin identity.

    Fernet and credential keys always (receipts and credentials use them
    whatever the token provider), the JWS key pair for ``jws`` tokens. The
    keys belong to ``user`` (default: us), the user Keystone runs as.
    """
    entry = pwd.getpwnam(user) if user else pwd.getpwuid(os.getuid())
    group = grp.getgrgid(entry.pw_gid).gr_name
    owner = ["--keystone-user", entry.pw_name, "--keystone-group", group]
    steps: list[dict[str, Any]] = [
        {"argv": ["db_sync"]},
        {"argv": ["fernet_setup", *owner]},
        {"argv": ["credential_setup", *owner]},
    ]
    if token_provider == "jws":
        run_manage_batch(run, manage, [*steps, _jws_step(run, owner)])
        _place_jws_keys(run)  # bootstrap loads the token provider: keys first
        steps = []
    steps.append({"argv": _bootstrap_args(url)})
    # the password goes through the environment, never the command line
    run_manage_batch(run, manage, steps, env={"OS_BOOTSTRAP_PASSWORD": password})
    sqlite = run.db / "keystone.sqlite"
    if sqlite.exists():
        enable_sqlite_wal(sqlite)


def create_user_pool(
    run: RunDir, auth_url: str, deployment: Deployment, progress: Progress
) -> float:
    """Create the run's user pool while Keystone is stopped; return its seconds.

    See :mod:`rally_keystone_perf.deploy.user_pool`: Keystone's own managers
    (the build's, with ``--keystone-build``), one shared password hash,
    written to ``private/user-pool.json``; at least one user.
    """
    options = deployment.options
    tenants, per_tenant = options.user_pool or (1, 1)
    progress(
        f"creating the user pool: {tenants} projects x {per_tenant} users "
        "(Keystone's managers, one shared password hash)"
    )
    cmd = [
        str(runtime.python(options)),
        "-m",
        "rally_keystone_perf.deploy.user_pool",
        *config_args(config_files(run)),
        *_pool_source(run, tenants, per_tenant),
        "--auth-url",
        auth_url,
        "--out",
        str(run.user_pool),
    ]
    started = time.monotonic()
    env = services.QUIET_WARNINGS | runtime.environment(run, options)
    code = services.run_logged(cmd, run.logs / "user-pool.log", env=env)
    seconds = time.monotonic() - started
    if code != 0:
        raise LaunchError(
            f"creating the user pool failed (exit {code}); last lines of its "
            "logs:\n" + logtail.log_tails(run, ("user-pool.log", "keystone.log"))
        )
    run.write_state(
        user_pool={
            "projects": tenants,
            "users_per_project": per_tenant,
            "seconds": round(seconds, 1),
        }
    )
    progress(f"user pool ready: {tenants * per_tenant} users in {seconds:.1f} s")
    return seconds


def _pool_source(run: RunDir, tenants: int, per_tenant: int) -> list[str]:
    """The users' plan when a directory holds them already, else the size."""
    plan = ldap.pool_plan_file(run)
    if plan.exists():
        return ["--plan", str(plan)]
    return ["--size", f"{tenants}x{per_tenant}"]


def give_keys_to(run: RunDir, user: str) -> None:
    """Hand the keys folder to ``user``: keystone-manage writes them as that user."""
    entry = pwd.getpwnam(user)
    os.chown(run.keys, entry.pw_uid, entry.pw_gid)


def grant_server_user(run: RunDir, user: str, logs: Path | None = None) -> None:
    """Let ``user`` (Apache's workers) use the run's database, keys and logs.

    The database folder with its SQLite files, the keys and the log folder
    (``logs``, default the run's: a cluster node logs to its own) become the
    user's (a database server's own folder stays its server's); the private
    secrets file (database password), if any, becomes readable by its group.
    The admin password and Rally's files stay ours alone.
    """
    entry = pwd.getpwnam(user)
    sqlite = [run.db, *run.db.glob("keystone.sqlite*")]
    for path in [*sqlite, *_tree(run.keys), *_tree(logs or run.logs)]:
        os.chown(path, entry.pw_uid, entry.pw_gid)
    secret = run.private / SECRETS_CONF
    if secret.exists():
        os.chown(run.private, 0, entry.pw_gid)
        os.chmod(run.private, 0o710)
        os.chown(secret, 0, entry.pw_gid)
        os.chmod(secret, 0o640)


def _tree(top: Path) -> list[Path]:
    """``top`` and everything under it."""
    return [top, *top.rglob("*")]


def first_pool_user(run: RunDir) -> dict[str, str] | None:
    """The first user of the run's pool as a Rally env ``users`` entry."""
    try:
        pool = json.loads(run.user_pool.read_text())
        tenant = pool["tenants"][0]
        user = tenant["users"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return None
    return {
        "username": user["name"],
        "password": pool["password"],
        "project_name": tenant["name"],
        "user_domain_name": pool["domain"],
        "project_domain_name": pool["domain"],
    }


def write_env_spec(
    run: RunDir, auth_url: str, password: str, user: dict[str, str] | None = None
) -> None:
    """Write the Rally ``existing@openstack`` spec for this instance (private).

    ``user`` (one of the pool's) becomes the env's existing user.
    """
    spec: dict[str, Any] = {
        "openstack": {
            "auth_url": auth_url,
            "region_name": REGION,
            "endpoint_type": "public",
            "https_insecure": False,
            "admin": {
                "username": ADMIN_USER,
                "password": password,
                "project_name": ADMIN_PROJECT,
                "user_domain_name": "Default",
                "project_domain_name": "Default",
            },
        }
    }
    if user is not None:
        spec["openstack"]["users"] = [user]
    write_private_json(run.env_spec, spec)
