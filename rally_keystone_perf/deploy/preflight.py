"""Checks before anything is created: executables, ports, the server's user.

Each raises :class:`~rally_keystone_perf.deploy.options.LaunchError` naming
what is missing or closed, so a run that cannot start leaves nothing behind.
"""

from __future__ import annotations

import errno
import glob
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import modes
from rally_keystone_perf.deploy.backends import postgresql
from rally_keystone_perf.deploy.cluster import cgroups
from rally_keystone_perf.deploy.nova import config as nova_config
from rally_keystone_perf.deploy.options import (
    Deployment,
    LaunchError,
    LaunchOptions,
    server_user,
)

SYSTEM_BIN_DIRS = ("/usr/sbin", "/sbin", "/usr/local/sbin")


def find_executable(req: modes.Requirement) -> Path:
    """Locate ``req`` beside the interpreter (venv), on PATH or in sbin."""
    candidate = paths.venv_bin(req.executable)
    if req.in_venv and candidate.is_file() and os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which(req.executable)
    if not found and not req.in_venv:  # daemons live in sbin, often off PATH
        found = shutil.which(req.executable, path=os.pathsep.join(SYSTEM_BIN_DIRS))
    for pattern in () if found else req.search_globs:
        matches = sorted(glob.glob(os.path.join(pattern, req.executable)))
        if matches:  # the newest version, in the first folder that has one
            found = matches[-1]
            break
    if found:
        return Path(found)
    raise LaunchError(
        f"{req.executable} is not installed; install it with: {req.install_hint}"
    )


def requirements(deployment: Deployment) -> tuple[modes.Requirement, ...]:
    """What the mode, the cache and the database need, without repeats."""
    options, mode = deployment.options, deployment.mode
    if options.cache not in modes.CACHES:
        raise ValueError(f"unknown cache {options.cache!r} ({', '.join(modes.CACHES)})")
    if options.db not in modes.DATABASES:
        raise ValueError(f"unknown db {options.db!r} ({', '.join(modes.DATABASES)})")
    if options.identity not in modes.IDENTITIES:
        known = ", ".join(modes.IDENTITIES)
        raise ValueError(f"unknown identity {options.identity!r} ({known})")
    found: dict[str, modes.Requirement] = {}
    for req in (
        *mode.requirements,
        *modes.CACHES[options.cache],
        *modes.DATABASES[options.db],
        *modes.IDENTITIES[options.identity],
        *(modes.CLUSTER_REQUIREMENTS if options.clustered else ()),
        *((modes.REDIS,) if options.trace else ()),  # --trace's backend
    ):
        found.setdefault(req.executable, req)
    return tuple(found.values())


def check_requirements(reqs: tuple[modes.Requirement, ...]) -> dict[str, Path]:
    """Return every executable in ``reqs``, or raise naming what is missing."""
    return {req.executable: find_executable(req) for req in reqs}


def check_modules(deployment: Deployment) -> None:
    """Fail naming the extra to install when a backend's driver is missing."""
    for choice in (deployment.options.db, deployment.options.identity):
        check_choice_modules(choice)


def check_choice_modules(choice: str) -> None:
    """Fail naming the extra to install when what ``choice`` imports is missing
    (a backend's driver, or ``locust`` for ``--engine locust``)."""
    for req in modes.MODULES.get(choice, ()):
        if importlib.util.find_spec(req.module) is None:
            raise LaunchError(
                f"{choice} needs the Python module {req.module}, which is "
                f"not installed; install it with: {req.install_hint}"
            )


def check_cluster(deployment: Deployment) -> None:
    """``--nodes`` within 1-8, on a mode a cluster runs, with a balance haproxy has."""
    options = deployment.options
    if not 1 <= options.nodes <= modes.MAX_NODES:
        raise LaunchError(
            f"--nodes {options.nodes}: a cluster has 1 to {modes.MAX_NODES} nodes"
        )
    if options.clustered and deployment.mode.name not in modes.CLUSTER_MODES:
        asked = f"--nodes {options.nodes}" if options.nodes > 1 else "--db galera"
        raise LaunchError(
            f"{asked}: mode {deployment.mode.name} has no cluster "
            f"(cluster modes: {', '.join(modes.CLUSTER_MODES)})"
        )
    if options.lb_balance not in ("roundrobin", "leastconn"):
        raise LaunchError(f"--lb-balance {options.lb_balance}: roundrobin or leastconn")
    check_cpu_quotas(options)


def check_cpu_quotas(options: LaunchOptions) -> None:
    """``--node-cpus``/``--db-cpus``: a quota the kernel takes, a database
    server to hold to it, and a cgroup CPU controller we may write to."""
    if options.node_cpus is None and options.db_cpus is None:
        return
    if options.db_cpus is not None and options.db == "sqlite":
        raise LaunchError(
            f"--db-cpus: --db {options.db} has no database server to hold to a "
            "quota (use --db mysql, galera or postgresql)"
        )
    try:
        cgroups.check_cpus("--node-cpus", options.node_cpus)
        cgroups.check_cpus("--db-cpus", options.db_cpus)
        version, parent = cgroups.hierarchy()
    except cgroups.CgroupError as exc:
        raise LaunchError(str(exc)) from None
    if not os.access(parent, os.W_OK):
        raise LaunchError(
            f"--node-cpus/--db-cpus: cannot create cgroups in {parent} "
            "(run as root, or without the quotas)"
        )
    largest = max(c for c in (options.node_cpus, options.db_cpus) if c)
    try:
        cgroups.check_room(version, parent, largest)
    except (cgroups.CgroupError, OSError) as exc:
        raise LaunchError(f"--node-cpus/--db-cpus: {exc}") from None


def check_fake_computes(deployment: Deployment) -> None:
    """``--fake-computes`` only for a Nova stack, and within its bounds."""
    computes = deployment.options.fake_computes
    if computes != 1 and deployment.mode.stack != "nova":
        raise LaunchError(
            f"--fake-computes is for nova-fake; mode {deployment.mode.name} has none"
        )
    try:
        nova_config.check_computes(computes)
    except nova_config.StackError as exc:
        raise LaunchError(str(exc)) from None


def port_is_free(host: str, port: int) -> bool:
    """True when nothing listens on host:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OverflowError:
            raise LaunchError(f"port {port} is out of range (1-65535)") from None
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return False
            raise LaunchError(
                f"cannot listen on {host}:{port}: {exc.strerror}"
            ) from None
    return True


def pick_port(host: str, requested: int | None) -> int:
    """Return ``requested`` if free (else raise), or a free port chosen by the OS."""
    if requested is not None:
        if not port_is_free(host, requested):
            raise LaunchError(
                f"port {requested} on {host} is in use; choose another with --port "
                "or leave --port out to pick a free one"
            )
        return requested
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, 0))
        except OSError as exc:
            raise LaunchError(f"cannot listen on {host}: {exc.strerror}") from None
        return int(sock.getsockname()[1])


def check_server_user(
    mode: modes.Mode, python: Path | None = None, path: Path | None = None
) -> None:
    """Fail early when the user a server drops to cannot import Keystone.

    Apache's workers run as ``www-data``: they must reach the interpreter and
    the venv (a venv under /root is out of reach by default). ``python``:
    the one Keystone runs with (a ``--keystone-build``'s), default ours;
    ``path``: a folder put on its PYTHONPATH (where the suite's package is).
    """
    python = python or Path(sys.executable)
    user = server_user(mode)
    if user is None:
        return
    _require_user(user, f"mode {mode.name} runs Keystone as {user}", "apache2")
    probe = "import keystone, rally_keystone_perf"
    env = None if path is None else {**os.environ, "PYTHONPATH": str(path)}
    result = subprocess.run(
        ["runuser", "-u", user, "--", str(python), "-c", probe],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd="/",
        env=env,
    )
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no output)"])[-1]
        blocked = first_closed_folder(python, user) or first_closed_folder(
            Path(os.path.realpath(python)), user
        )
        hint = (
            f"; let it through with: setfacl -m u:{user}:x {blocked}" if blocked else ""
        )
        raise LaunchError(
            f"mode {mode.name} runs Keystone as {user}, who cannot start this "
            f"Python ({python}): {last}{hint}"
        )


def _require_user(user: str, who: str, package: str) -> None:
    """``user`` exists; else ``<who>, which does not exist (it comes with
    the <package> package)``.

    :raises LaunchError: no such user.
    """
    try:
        pwd.getpwnam(user)
    except KeyError:
        raise LaunchError(
            f"{who}, which does not exist (it comes with the {package} package)"
        ) from None


def check_backend_users(options: LaunchOptions, runs_root: Path) -> None:
    """Fail early when PostgreSQL's user (as root) cannot reach the runs folder."""
    if options.db != "postgresql":
        return
    user = postgresql.server_user()
    if user is None:
        return
    _require_user(
        user, f"PostgreSQL refuses to run as root and runs as {user}", "postgresql"
    )
    existing = runs_root.absolute()
    while not existing.exists():
        existing = existing.parent
    closed = first_closed_folder(existing / "run", user)
    if closed is not None:
        raise LaunchError(
            f"PostgreSQL refuses to run as root and runs as {user}, who cannot "
            f"reach the runs folder {runs_root} ({closed} is closed to it); use "
            f"another --runs-dir or: setfacl -m u:{user}:x {closed}"
        )


def check_run_folder(deployment: Deployment, keystone_conf: Path, root: Path) -> None:
    """Fail when the server's user cannot reach the run folder (rendered already)."""
    runs_as = deployment.runs_as
    if runs_as is None:
        return
    closed = first_closed_folder(keystone_conf, runs_as)
    if closed is not None:
        raise LaunchError(
            f"mode {deployment.mode.name} runs Keystone as {runs_as}, who cannot "
            f"reach the run folder {root} ({closed} is closed to it); "
            f"use another --runs-dir or: setfacl -m u:{runs_as}:x {closed}"
        )


def first_closed_folder(path: Path, user: str) -> Path | None:
    """The first folder above ``path`` that ``user`` cannot traverse."""
    entry = pwd.getpwnam(user)
    for folder in [*reversed(path.parents)][1:]:
        info = folder.stat()
        if info.st_uid == entry.pw_uid:
            bit = 0o100
        elif info.st_gid == entry.pw_gid:
            bit = 0o010
        else:
            bit = 0o001
        if not info.st_mode & bit and not _acl_allows(folder, user):
            return folder
    return None


def _acl_allows(folder: Path, user: str) -> bool:
    """True when ``getfacl`` shows an entry letting ``user`` traverse."""
    try:
        out = subprocess.run(
            ["getfacl", "-p", str(folder)], capture_output=True, text=True
        ).stdout
    except FileNotFoundError:
        return False
    return any(
        line.startswith(f"user:{user}:") and line.rstrip().endswith("x")
        for line in out.splitlines()
    )
