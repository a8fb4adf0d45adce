"""What to start: the options a run is given, resolved once into a Deployment.

:class:`LaunchOptions` is what the CLI (or a benchmark) asks for, the mode
as its name; :func:`resolve` turns it into a :class:`Deployment`: the
:class:`~rally_keystone_perf.deploy.modes.Mode` itself, the options with
the mode's own database applied, and the effective parallelism
(:class:`Settings`). Everything after that takes the Deployment.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.deploy import modes

Progress = Callable[[str], None]
SOMAXCONN = Path("/proc/sys/net/core/somaxconn")


class LaunchError(Exception):
    """Keystone could not be prepared or started; the message says why."""


@dataclass(frozen=True)
class LaunchOptions:
    """What to start: mode, parallelism and the Keystone settings a run varies.

    ``processes``, ``threads`` and ``listen_backlog`` left None take the
    mode's profile values; ``start_timeout`` None allows 60 s plus 3 s per
    server process (each loads Keystone: about 3 CPU seconds).
    """

    mode: str = modes.DEFAULT_MODE
    profile: str = modes.DEFAULT_PROFILE
    host: str = "127.0.0.1"
    port: int | None = None
    processes: int | None = None
    threads: int | None = None
    listen_backlog: int | None = None
    password_hash_rounds: int | None = None
    token_expiration: int = modes.DEFAULT_TOKEN_EXPIRATION
    token_provider: str = modes.DEFAULT_TOKEN_PROVIDER
    wsgi: str = modes.DEFAULT_WSGI  # the app the servers load (modes.WSGI_APPS)
    cache: str = modes.DEFAULT_CACHE
    db: str = "sqlite"
    identity: str = modes.DEFAULT_IDENTITY
    start_timeout: float | None = None
    user_pool: tuple[int, int] | None = None  # (projects, users per project)
    fake_computes: int = 1  # nova-fake: nova-compute processes (fake hosts)
    nodes: int = 1  # Keystone hosts; more than 1: behind haproxy (deploy/cluster)
    lb_balance: str = "roundrobin"  # haproxy's balance in front of a cluster
    node_cpus: float | None = None  # each node's CPU quota (deploy/cluster/cgroups)
    db_cpus: float | None = None  # the database server's CPU quota
    # --worker-hosts netns:K: the Locust workers' own hosts; Keystone then
    # listens on their bridge's address (deploy/cluster/client_hosts)
    client_hosts: int = 0
    # a keystone.conf template instead of deployments/common/keystone.conf.tmpl
    # (benchmarks.stock_keystone's minimal one); same $values
    keystone_conf_template: str | None = None
    # --trace slowest:N | sample:P (deploy/tracing.py); None: no tracing
    trace: str | None = None
    # --keystone-build SPEC (deploy/builds): a pip requirement, git URL@ref or
    # checkout; None: the Keystone installed beside the suite
    keystone_build: str | None = None
    # --build-deps: the build's other libraries, the suite's versions
    # ("suite"), those of its Keystone's release day ("release") or of a
    # date ("2025-04-02") (deploy/builds/dated.py)
    build_deps: str = "suite"
    # the build's venv once installed (deploy/builds/venvs.py), and its cache
    keystone_venv: str | None = None
    build_cache: str | None = None

    @property
    def clustered(self) -> bool:
        """Keystone behind haproxy with its hosts in namespaces (deploy/cluster):
        more than one node, or a Galera database (its members are hosts too)."""
        return self.nodes > 1 or self.db == "galera"


@dataclass(frozen=True)
class Settings:
    """The effective parallelism of a run: options over the mode's profile."""

    processes: int
    threads: int
    listen_backlog: int
    somaxconn: int | None
    values: dict[str, str]


@dataclass(frozen=True)
class Deployment:
    """A run's options resolved once: the mode object and its settings.

    ``options`` carry the mode's own database when it has one (nova-fake).
    """

    options: LaunchOptions
    mode: modes.Mode
    settings: Settings

    @property
    def runs_as(self) -> str | None:
        """The user Keystone's code runs as when it is not us (see server_user)."""
        return server_user(self.mode)

    @property
    def start_timeout(self) -> float:
        """Seconds Keystone may take to answer: 60 s plus 3 s per process."""
        return self.options.start_timeout or 60.0 + 3.0 * self.settings.processes

    @property
    def backend_timeout(self) -> float:
        """Seconds a backend (MariaDB, memcached) may take to accept."""
        return self.options.start_timeout or 60.0


def _quiet(_: str) -> None:
    """Progress sink that prints nothing."""


def somaxconn() -> int | None:
    """The kernel's cap on listen backlogs (None when unknown)."""
    try:
        return int(SOMAXCONN.read_text().strip())
    except (OSError, ValueError):
        return None


def resolve_settings(mode: modes.Mode, options: LaunchOptions) -> Settings:
    """Options over the profile; a backlog above the kernel's cap is lowered.

    :raises ValueError: unknown profile, or threads for a mode without them.
    """
    profile = modes.get_profile(mode, options.profile)
    if options.threads not in (None, 1) and not mode.threads_configurable:
        raise ValueError(f"mode {mode.name} has no threads setting (use --processes)")
    cap = somaxconn()
    backlog = options.listen_backlog or profile.listen_backlog
    if cap is not None:
        backlog = min(backlog, cap)
    return Settings(
        processes=options.processes or profile.processes,
        threads=options.threads or profile.threads,
        listen_backlog=backlog,
        somaxconn=cap,
        values=dict(profile.values),
    )


def _with_mode_database(options: LaunchOptions, mode: modes.Mode) -> LaunchOptions:
    """``options`` with the mode's own database when it has one (nova-fake),
    and MariaDB for a cluster on SQLite: its nodes share one database, as
    kolla-ansible's share one Galera cluster."""
    if mode.database and options.db != mode.database:
        return dataclasses.replace(options, db=mode.database)
    if options.nodes > 1 and options.db == "sqlite":  # a file no node shares
        return dataclasses.replace(options, db="mysql")
    return options


def _check_wsgi(mode: modes.Mode, options: LaunchOptions) -> None:
    """``--wsgi stock`` where the servers load Keystone's own entry point.

    :raises ValueError: an unknown app, a mode that serves more than
        Keystone, or ``--trace``, whose spans are the wrapper's.
    """
    if options.wsgi not in modes.WSGI_APPS:
        raise ValueError(f"--wsgi {options.wsgi}: one of {', '.join(modes.WSGI_APPS)}")
    if options.wsgi == modes.DEFAULT_WSGI:
        return
    if mode.name not in modes.KEYSTONE_MODES:
        raise ValueError(
            f"--wsgi {options.wsgi}: mode {mode.name} starts more than Keystone; "
            f"stock runs in {', '.join(modes.KEYSTONE_MODES)}"
        )
    if options.trace:
        raise ValueError(
            f"--wsgi {options.wsgi} and --trace: the trace points are the suite "
            "wrapper's (deploy/wsgi_app.py)"
        )


def resolve(options: LaunchOptions, progress: Progress = _quiet) -> Deployment:
    """Resolve the mode, its database and its settings, once: every later
    step (task checks, preflight, launcher, session) receives the Deployment.

    ``progress`` hears when the mode imposes its own database.

    :raises ValueError: unknown mode or profile, threads for a mode without,
        ``--wsgi stock`` where it cannot run.
    """
    mode = modes.get_mode(options.mode)
    _check_wsgi(mode, options)
    effective = _with_mode_database(options, mode)
    if effective != options:
        why = f"mode {options.mode}" if mode.database else f"--nodes {options.nodes}"
        progress(f"{why} runs on --db {effective.db}")
    return Deployment(effective, mode, resolve_settings(mode, effective))


def server_user(mode: modes.Mode) -> str | None:
    """The user Keystone's code runs as when it is not us (root dropping it)."""
    return mode.drops_root_to if os.geteuid() == 0 else None
