"""Keystone's MariaDB (``--db mysql``), one server per run.

Debian's ``mariadbd`` run as the run's own child on loopback with its data
and logs inside the run folder, never the system service. The database
password is generated per run and lives only in ``private/``.
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


def as_root() -> bool:
    """Whether we run as root."""
    return os.geteuid() == 0


def os_user() -> str:
    """The OS user we run as: root and it log in to MariaDB over the socket."""
    return pwd.getpwuid(os.geteuid()).pw_name


def mariadb_client(mariadbd: Path) -> Path:
    """The ``mariadb`` client beside ``mariadbd`` (else Debian's)."""
    client = mariadbd.with_name("mariadb")
    return client if client.exists() else Path("/usr/bin/mariadb")


def mariadb_argv(
    exe: Path, datadir: Path, socket_path: Path, host: str, port: int, log: Path
) -> list[str]:
    """mariadbd with everything in the run folder (no my.cnf is read)."""
    argv = [
        str(exe),
        "--no-defaults",
        f"--datadir={datadir}",
        f"--socket={socket_path}",
        f"--port={port}",
        f"--bind-address={host}",
        f"--pid-file={datadir}/mariadb.pid",
        f"--log-error={log}",
        # no DNS lookup per connection: loopback clients only (default: on)
        "--skip-name-resolve",
        # kolla-ansible sizes it at 40% of RAM; 256M holds Keystone's
        # database many times over (default: 128M)
        "--innodb-buffer-pool-size=256M",
        # N Keystone processes x (pool 5 + overflow 10) connections, more in
        # the tuned profiles; kolla-ansible sets 10000 (default: 151)
        "--max-connections=1000",
        # innodb_flush_log_at_trx_commit: the default (1, flush every
        # commit), as kolla-ansible's galera.cnf leaves it
    ]
    if as_root():  # mariadbd refuses to run as root unless told to
        argv.append("--user=root")
    return argv


def start_mariadb(
    run: RunDir,
    exes: dict[str, str | Path],
    host: str,
    port: int,
    socket_path: Path,
    timeout: float,
    clients: Sequence[str] = (),
) -> tuple[subprocess.Popen[bytes], str]:
    """Initialise a datadir, start mariadbd, create Keystone's database.

    ``clients``: the addresses Keystone connects from besides ``host`` (a
    cluster's nodes). Returns the process and the SQLAlchemy URL (with the
    generated password: the caller must keep it in private files only).
    """
    datadir = run.db / "mariadb"
    log = run.logs / "mariadb.log"
    install_datadir(Path(exes["mariadb-install-db"]), datadir, run.logs)
    argv = [  # in the database's cgroup with --db-cpus
        *cgroups.host_prefix(run, cgroups.DB_GROUP),
        *mariadb_argv(Path(exes["mariadbd"]), datadir, socket_path, host, port, log),
    ]
    proc = services.start(run, "mariadb", argv)
    probes.wait_until(
        lambda: probes.port_open(host, port),
        proc,
        "mariadbd",
        timeout,
        lambda: logtail.named_tail(log),
    )
    password = secrets.token_urlsafe(24)
    write_private_json(run.private / "db.json", {"user": DB_USER, "password": password})
    create_databases(
        Path(exes["mariadbd"]),
        socket_path,
        host,
        [DB_NAME],
        DB_USER,
        password,
        clients,
    )
    url = f"mysql+pymysql://{DB_USER}:{password}@{host}:{port}/{DB_NAME}?charset=utf8"
    return proc, url


def install_datadir(install_db: Path, datadir: Path, logs: Path) -> None:
    """``mariadb-install-db`` into ``datadir`` (its log in ``logs``).

    :raises services.ServiceError: it failed (with its log's tail).
    """
    install = [
        str(install_db),
        "--no-defaults",
        f"--datadir={datadir}",
        # root and the OS user we run as log in over the socket, no password
        "--auth-root-authentication-method=socket",
        f"--user={os_user()}",
        "--skip-test-db",
    ]
    log = logs / f"{datadir.name}-install-db.log"
    code = services.run_logged(install, log, stdin=subprocess.DEVNULL)
    if code != 0:
        raise services.ServiceError(
            f"mariadb-install-db failed (exit {code}); last lines of "
            f"its log:\n{logtail.named_tail(log)}"
        )


def create_databases(
    mariadbd: Path,
    socket_path: Path,
    host: str,
    names: list[str],
    user: str,
    password: str,
    clients: Sequence[str] = (),
) -> None:
    """Create the databases ``names`` and ``user`` (all privileges on them),
    who may connect from ``host`` and each of ``clients``.

    Runs as our OS user over the socket (unix_socket authentication, no
    password); the new user's password goes through stdin, never the command
    line.
    """
    hosts = list(dict.fromkeys([host, *clients]))
    lines = [f"CREATE USER '{user}'@'{h}' IDENTIFIED BY '{password}';" for h in hosts]
    for name in names:
        lines.append(f"CREATE DATABASE {name};")
        lines += [f"GRANT ALL PRIVILEGES ON {name}.* TO '{user}'@'{h}';" for h in hosts]
    client = mariadb_client(mariadbd)
    result = subprocess.run(
        [str(client), "--no-defaults", f"--socket={socket_path}", "-u", os_user()],
        input="\n".join(lines).encode() + b"\n",
        capture_output=True,
    )
    if result.returncode != 0:
        raise services.ServiceError(
            f"creating the databases {', '.join(names)} failed: "
            + result.stderr.decode(errors="replace").strip()
        )
