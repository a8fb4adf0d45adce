"""Keystone's PostgreSQL (``--db postgresql``), the database seed 001 ran on.

Debian's PostgreSQL server programs, run as the run's own children: the
cluster is initialised in the run folder (``db/postgresql``), listens on a
loopback port and a unix socket in the run's sockets folder, and stops with
the run; the system's service and its clusters are never touched.
PostgreSQL refuses to run as root: as root, its programs run as Debian's
``postgres`` user, who owns the cluster's folder. Keystone's password is
generated per run and lives only in ``private/``.
"""

from __future__ import annotations

import os
import pwd
import secrets
import subprocess
from collections.abc import Sequence
from pathlib import Path

from rally_keystone_perf.deploy import logtail, probes, services
from rally_keystone_perf.deploy.cluster import cgroups
from rally_keystone_perf.layout.rundir import RunDir, write_private_json

DB_NAME = "keystone"
DB_USER = "keystone"
SYSTEM_USER = "postgres"  # Debian's postgresql package creates it
# N Keystone processes x (pool 5 + overflow 10) connections, more in the
# tuned profiles; the same ceiling as MariaDB's (default: 100)
MAX_CONNECTIONS = 1000


def server_user() -> str | None:
    """The user PostgreSQL runs as when we are root (it refuses root)."""
    return SYSTEM_USER if os.geteuid() == 0 else None


def _superuser() -> str:
    """The cluster's superuser: the OS user its programs run as (peer auth)."""
    return server_user() or pwd.getpwuid(os.geteuid()).pw_name


def initdb_argv(initdb: Path, datadir: Path) -> list[str]:
    """``initdb`` of a cluster authenticating as Debian's pg_createcluster does."""
    return [
        str(initdb),
        f"--pgdata={datadir}",
        f"--username={_superuser()}",
        # Debian's pg_hba.conf: local (socket) logins by OS user, TCP logins
        # by password (initdb's own default: trust for both)
        "--auth-local=peer",
        "--auth-host=scram-sha-256",
        "--encoding=UTF8",
        # every Debian has C.UTF-8; the system locale may be unset in a
        # container (initdb's default: the environment's locale)
        "--locale=C.UTF-8",
        "--no-instructions",
    ]


def postgres_argv(
    postgres: Path, datadir: Path, socket_dir: Path, host: str, port: int
) -> list[str]:
    """The server on ``host:port`` and a socket in ``socket_dir``; logs to stderr."""
    return [
        str(postgres),
        "-D",
        str(datadir),
        # the run's own socket folder (default: /var/run/postgresql)
        "-k",
        str(socket_dir),
        # loopback only (default: localhost)
        "-h",
        host,
        "-p",
        str(port),
        "-c",
        f"max_connections={MAX_CONNECTIONS}",
    ]


def _owned_folder(path: Path, user: str | None) -> Path:
    """Create ``path`` (0700), owned by ``user`` when it is not us."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(path, entry.pw_uid, entry.pw_gid)
    return path


def start_postgresql(
    run: RunDir,
    exes: dict[str, Path],
    host: str,
    port: int,
    sockets: Path,
    timeout: float,
    clients: Sequence[str] = (),
) -> tuple[subprocess.Popen[bytes], str]:
    """Initialise a cluster, start it, create Keystone's role and database.

    ``clients``: the addresses Keystone connects from besides loopback (a
    cluster's nodes), let in by password. Returns the process and the
    SQLAlchemy URL (with the generated password: the caller must keep it in
    private files only).
    """
    user = server_user()
    datadir = _owned_folder(run.db / "postgresql", user)
    socket_dir = _owned_folder(sockets / "postgresql", user)
    log = run.logs / "initdb.log"
    code = services.run_logged(
        initdb_argv(exes["initdb"], datadir),
        log,
        stdin=subprocess.DEVNULL,
        cwd=datadir,
        user=user,
    )
    if code != 0:
        raise services.ServiceError(
            f"initdb failed (exit {code}); last lines of its log:\n"
            f"{logtail.named_tail(log)}"
        )
    if clients:  # a cluster: its nodes, and keystone-manage on the bridge
        allow_clients(datadir / "pg_hba.conf", [host, *clients])
    argv = postgres_argv(exes["postgres"], datadir, socket_dir, host, port)
    join = cgroups.host_prefix(run, cgroups.DB_GROUP)  # with --db-cpus
    runs_as = user
    if join and user is not None:  # join as root, then become postgres
        argv, runs_as = [*drop_to(user), *argv], None
    proc = services.start(run, "postgresql", [*join, *argv], user=runs_as)
    psql = [
        str(exes["postgres"].resolve().with_name("psql")),  # beside the server
        "-X",  # no ~/.psqlrc
        "-q",
        "-v",
        "ON_ERROR_STOP=1",
        f"--host={socket_dir}",
        f"--port={port}",
        "--dbname=postgres",
    ]
    probes.wait_until(
        lambda: _accepts(psql, user),
        proc,
        "postgres",
        timeout,
        lambda: logtail.named_tail(run.logs / "postgresql-stdout.log"),
    )
    password = secrets.token_urlsafe(24)
    write_private_json(run.private / "db.json", {"user": DB_USER, "password": password})
    _create_database(psql, user, password)
    url = f"postgresql+psycopg2://{DB_USER}:{password}@{host}:{port}/{DB_NAME}"
    return proc, url


def allow_clients(pg_hba: Path, clients: Sequence[str]) -> None:
    """Let Keystone's role log in to its database from each of ``clients``.

    initdb's pg_hba.conf admits TCP logins from loopback only; a cluster's
    nodes connect from their own addresses on its bridge, by password
    (scram-sha-256, as initdb's host lines), to Keystone's database only.
    """
    lines = [
        f"host {DB_NAME} {DB_USER} {address}/32 scram-sha-256\n"
        for address in dict.fromkeys(clients)
    ]
    if lines:
        with pg_hba.open("a") as hba:
            hba.write("# the cluster's nodes (rally-keystone-perf)\n")
            hba.writelines(lines)


def drop_to(user: str) -> list[str]:
    """The argv prefix that runs a command as ``user``, its group and no other
    (util-linux's setpriv: after a root shell has joined the cgroup)."""
    entry = pwd.getpwnam(user)
    return [
        "setpriv",
        f"--reuid={entry.pw_uid}",
        f"--regid={entry.pw_gid}",
        "--clear-groups",
        "--",
    ]


def _accepts(psql: list[str], user: str | None) -> bool:
    """True once the server answers a query (not merely listens)."""
    result = subprocess.run(
        [*psql, "--command=SELECT 1"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        **services.as_user(user),
    )
    return result.returncode == 0


def _create_database(psql: list[str], user: str | None, password: str) -> None:
    """Keystone's role (password through stdin, never argv) and its database."""
    statements = (
        f"CREATE ROLE {DB_USER} LOGIN PASSWORD '{password}';\n"
        f"CREATE DATABASE {DB_NAME} OWNER {DB_USER};\n"
    )
    result = subprocess.run(
        psql,
        input=statements.encode(),
        capture_output=True,
        **services.as_user(user),
    )
    if result.returncode != 0:
        raise services.ServiceError(
            f"creating the database {DB_NAME} failed: "
            + result.stderr.decode(errors="replace").strip()
        )
