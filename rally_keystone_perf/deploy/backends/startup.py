"""Start the backends a run's Keystone is configured to use, before Keystone.

The database (``--db``: MariaDB or PostgreSQL; SQLite needs no server), the
identity directory (``--identity ldap``: slapd), the shared cache
(``--cache memcached``) and OSProfiler's redis (``--trace``), each on its
own free loopback port; what Keystone's configuration needs to reach them
is returned (passwords go to ``private/``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from rally_keystone_perf.deploy import preflight
from rally_keystone_perf.deploy.backends import ldap, mariadb, memcached, postgresql
from rally_keystone_perf.deploy.cluster import cgroups
from rally_keystone_perf.deploy.keystone import config, init
from rally_keystone_perf.deploy.options import Deployment, Progress
from rally_keystone_perf.deploy.tracing import profiler
from rally_keystone_perf.layout import names
from rally_keystone_perf.layout.rundir import RunDir


@dataclass(frozen=True)
class Starting:
    """A deployment being started in its run folder: what each step of the
    start needs (the programs found by the preflight, where the sockets
    go, who hears of the progress)."""

    run: RunDir
    deployment: Deployment
    executables: dict[str, Path]
    sockets: Path
    progress: Progress


class Started(NamedTuple):
    """Where the started backends listen (None: not started)."""

    cache_servers: list[str] | None = None  # memcached's host:port
    ldap_url: str | None = None
    trace_url: str | None = None  # --trace: OSProfiler's redis


def start(
    starting: Starting, admin_password: str, clients: Sequence[str] = ()
) -> Started:
    """Start the database, the directory and the cache the options ask for.

    Each listens on the options' host. ``admin_password``: Keystone's admin,
    who lives in the directory when the identity is LDAP; ``clients``: the
    addresses Keystone connects from besides that host (a cluster's nodes,
    which also run their own memcached: none is started here for them).
    """
    _start_database(starting, clients)
    ldap_url = None
    if starting.deployment.options.identity == "ldap":
        ldap_url = _start_ldap(starting, admin_password)
    trace_url = _start_trace_backend(starting)
    if clients:
        return Started(None, ldap_url, trace_url)
    port = _start_memcached(starting)
    host = starting.deployment.options.host
    caches = None if port is None else [f"{host}:{port}"]
    return Started(caches, ldap_url, trace_url)


def _start_trace_backend(starting: Starting) -> str | None:
    """``--trace``: the HMAC key into ``private/`` and redis; redis's URL."""
    run, deployment, progress = starting.run, starting.deployment, starting.progress
    executables, options = starting.executables, deployment.options
    if not options.trace:
        return None
    config.add_secret_section(run, profiler.secret_section(profiler.new_hmac_key(run)))
    progress(f"starting redis on {options.host} (OSProfiler's traces, --trace)")
    return profiler.start_redis(
        run, executables["redis-server"], options.host, deployment.backend_timeout
    )


def _start_database(starting: Starting, clients: Sequence[str]) -> None:
    """MariaDB or PostgreSQL; Keystone's URL to it in the private secrets file."""
    run, deployment, progress = starting.run, starting.deployment, starting.progress
    executables, sockets = starting.executables, starting.sockets
    options, timeout = deployment.options, deployment.backend_timeout
    if options.db not in ("mysql", "postgresql"):
        return
    db_port = preflight.pick_port(options.host, None)
    if options.db == "mysql":
        progress(f"starting MariaDB on {options.host}:{db_port}")
        _, url = mariadb.start_mariadb(
            run,
            dict(executables),
            options.host,
            db_port,
            sockets / "mariadb.sock",
            timeout,
            clients,
        )
    else:
        progress(f"starting PostgreSQL on {options.host}:{db_port}")
        _, url = postgresql.start_postgresql(
            run, executables, options.host, db_port, sockets, timeout, clients
        )
    config.write_secret_config(run, url)
    run.write_state(db_port=db_port)


def _start_ldap(starting: Starting, admin_password: str) -> str:
    """slapd loaded with the admin and the user pool; its ``ldap://`` URL."""
    run, deployment, progress = starting.run, starting.deployment, starting.progress
    executables, options = starting.executables, deployment.options
    port = preflight.pick_port(options.host, None)
    url = f"ldap://{options.host}:{port}"
    tenants, per_tenant = options.user_pool or (1, 1)
    progress(
        f"starting slapd on {options.host}:{port} with the admin and "
        f"{tenants * per_tenant} pool users (one slapadd)"
    )
    ldap.start_slapd(
        run,
        executables,
        url,
        (init.ADMIN_USER, admin_password),
        (tenants, per_tenant),
        deployment.backend_timeout,
    )
    run.write_state(ldap_port=port)
    return url


def _start_memcached(starting: Starting) -> int | None:
    """memcached for ``--cache memcached``; its port."""
    run, deployment, progress = starting.run, starting.deployment, starting.progress
    executables, options = starting.executables, deployment.options
    if options.cache != "memcached":
        return None
    port = preflight.pick_port(options.host, None)
    progress(f"starting memcached on {options.host}:{port}")
    memcached.start_memcached(
        run,
        executables["memcached"],
        options.host,
        port,
        deployment.backend_timeout,
        # on the Keystone host, in its cgroup with --node-cpus
        prefix=cgroups.host_prefix(run, names.node_name(0)),
    )
    return port
