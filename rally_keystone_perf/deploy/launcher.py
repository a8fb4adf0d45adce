"""Render, start, health-check and stop a real local Keystone (no Rally imports)."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import grp
import importlib.util
import json
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from string import Template
from typing import Any

from rally_keystone_perf import paths, stop_signals
from rally_keystone_perf.deploy import (
    backends,
    modes,
    nova_config,
    nova_stack,
    orphans,
    services,
)
from rally_keystone_perf.deploy.rundir import RunDir, new_run_dir, write_private_json

ADMIN_USER = "admin"
ADMIN_PROJECT = "admin"
REGION = "RegionOne"
LOG_TAIL_LINES = 25

Progress = Callable[[str], None]
# keystone-manage logs its errors to keystone.log (log_file), not its output
MANAGE_LOGS = ("keystone-manage.log", "keystone.log")
SERVER_LOGS = (
    "uwsgi.log",
    "apache-error.log",
    "nginx-error.log",
    "keystone.log",
    "uwsgi-stdout.log",
    "apache2-stdout.log",
    "nginx-stdout.log",
    "eventlet-stdout.log",
)
SECRETS_CONF = "keystone-secrets.conf"
SYSTEM_BIN_DIRS = ("/usr/sbin", "/sbin", "/usr/local/sbin")
SOMAXCONN = Path("/proc/sys/net/core/somaxconn")
APACHE_MODULES = "/usr/lib/apache2/modules"  # Debian's apache2
VERSIONED = ("keystone", "uwsgi", "rally", "oslo.service", "eventlet", "mod-wsgi")


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
    cache: str = modes.DEFAULT_CACHE
    db: str = "sqlite"
    start_timeout: float | None = None
    user_pool: tuple[int, int] | None = None  # (projects, users per project)
    fake_computes: int = 1  # nova-fake: nova-compute processes (fake hosts)
    # a keystone.conf template instead of deployments/common/keystone.conf.tmpl
    # (benchmarks.stock_keystone's minimal one); same $values
    keystone_conf_template: str | None = None


@dataclass(frozen=True)
class Settings:
    """The effective parallelism of a run: options over the mode's profile."""

    processes: int
    threads: int
    listen_backlog: int
    somaxconn: int | None
    values: dict[str, str]


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


def _quiet(_: str) -> None:
    """Progress sink that prints nothing."""


def find_executable(req: modes.Requirement) -> Path:
    """Locate ``req`` beside the interpreter (venv), on PATH or in sbin."""
    candidate = paths.venv_bin(req.executable)
    if req.in_venv and candidate.is_file() and os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which(req.executable)
    if not found and not req.in_venv:  # daemons live in sbin, often off PATH
        found = shutil.which(req.executable, path=os.pathsep.join(SYSTEM_BIN_DIRS))
    if found:
        return Path(found)
    raise LaunchError(
        f"{req.executable} is not installed; install it with: {req.install_hint}"
    )


def effective_options(options: LaunchOptions) -> LaunchOptions:
    """``options`` with the mode's own database when it has one (nova-fake)."""
    mode = modes.get_mode(options.mode)
    if mode.database and options.db != mode.database:
        return dataclasses.replace(options, db=mode.database)
    return options


def requirements(options: LaunchOptions) -> tuple[modes.Requirement, ...]:
    """What the mode, the cache and the database need, without repeats."""
    options = effective_options(options)
    mode = modes.get_mode(options.mode)
    if options.cache not in modes.CACHES:
        raise ValueError(f"unknown cache {options.cache!r} ({', '.join(modes.CACHES)})")
    if options.db not in modes.DATABASES:
        raise ValueError(f"unknown db {options.db!r} ({', '.join(modes.DATABASES)})")
    found: dict[str, modes.Requirement] = {}
    for req in (
        *mode.requirements,
        *modes.CACHES[options.cache],
        *modes.DATABASES[options.db],
    ):
        found.setdefault(req.executable, req)
    return tuple(found.values())


def check_requirements(reqs: tuple[modes.Requirement, ...]) -> dict[str, Path]:
    """Return every executable in ``reqs``, or raise naming what is missing."""
    return {req.executable: find_executable(req) for req in reqs}


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


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log file (or a note that it is missing)."""
    try:
        text = path.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return f"({path} was not written)"
    return "\n".join(text[-lines:])


def render_templates(
    run: RunDir,
    mode: modes.Mode,
    values: dict[str, str],
    keystone_conf: str | None = None,
) -> None:
    """Render the mode's templates into ``run.conf``.

    ``keystone_conf`` (a template file) replaces the shared keystone.conf one.
    """
    root = paths.deployments_dir()
    for folder in mode.run_dirs:
        (run.root / folder).mkdir(exist_ok=True)
    for template, target in mode.templates.items():
        source = root / template
        if keystone_conf is not None and target == "keystone.conf":
            source = Path(keystone_conf)
        text = Template(source.read_text()).substitute(values)
        (run.conf / target).write_text(text)


def config_files(run: RunDir) -> list[Path]:
    """Keystone's config files: keystone.conf, then the private secrets file.

    The secrets file exists only when a setting holds a generated password
    (the MariaDB connection URL); oslo.config lets later files override.
    """
    files = [run.conf / "keystone.conf"]
    secret = run.private / SECRETS_CONF
    return [*files, secret] if secret.exists() else files


def write_secret_config(run: RunDir, database_connection: str) -> None:
    """Write ``private/keystone-secrets.conf`` (mode 0600)."""
    path = run.private / SECRETS_CONF
    path.touch(mode=0o600)
    os.chmod(path, 0o600)
    path.write_text(
        "# generated by rally-keystone-perf: holds the database password\n"
        f"[database]\nconnection = {database_connection}\n"
    )


def cache_config(options: LaunchOptions, cache_port: int | None) -> str:
    """The ``[cache]`` section for ``--cache`` (see :data:`modes.CACHES`).

    ``none``: no section at all. Keystone turns oslo.cache on by default with
    its null backend, so nothing leaves the process but repeated lookups
    inside one request are memoized (its request-local cache).
    ``memcached``: the same switch, with the run's memcached as the shared
    backend for tokens, the catalog, identity, resource, role and assignment
    lookups (each section's ``caching`` defaults to true).
    ``disabled``: ``enabled = false``, which also turns the request-local
    cache off (5-12x slower validations); no deployment runs it.
    """
    if options.cache == "memcached":
        return (
            "[cache]\n"
            "# oslo.cache's memcached backend on pymemcache, installed with the\n"
            "# suite (default backend: dogpile.cache.null, nothing shared)\n"
            "backend = dogpile.cache.pymemcache\n"
            "# the run's memcached (default: localhost:11211)\n"
            f"memcache_servers = {options.host}:{cache_port}\n"
        )
    if options.cache == "disabled":
        return (
            "[cache]\n"
            "# --cache disabled: off on purpose, request-local caching included\n"
            "# (Keystone's default is on); not a configuration anyone deploys\n"
            "enabled = false\n"
        )
    return (
        "# [cache]: Keystone's default (oslo.cache on, null backend: the\n"
        "# request-local cache only, nothing shared between requests)"
    )


def token_expiration_line(seconds: int) -> str:
    """``[token] expiration`` when it differs from Keystone's 3600 s."""
    if seconds == modes.DEFAULT_TOKEN_EXPIRATION:
        return "# expiration: Keystone's default (3600 s)"
    return f"# --token-expiration (default: 3600 s)\nexpiration = {seconds}"


def mod_wsgi_module() -> str:
    """The mod_wsgi module of the ``mod-wsgi`` package built for this Python."""
    spec = importlib.util.find_spec("mod_wsgi")
    if spec is None or not spec.submodule_search_locations:
        return ""
    folder = Path(next(iter(spec.submodule_search_locations))) / "server"
    found = sorted(folder.glob("mod_wsgi-py*.so"))
    return str(found[0]) if found else ""


def server_user(mode: modes.Mode) -> str | None:
    """The user Keystone's code runs as when it is not us (root dropping it)."""
    return mode.drops_root_to if os.geteuid() == 0 else None


def apache_user_lines(user: str | None) -> str:
    """``User``/``Group`` for Apache's children: it refuses to serve as root.

    As root the children (and mod_wsgi's daemons) drop to ``user``, which
    :func:`grant_server_user` lets into the run folder; as another user
    Apache cannot switch and runs everything as that user.
    """
    if user is None:
        return "# not root: Apache's children run as the user who started it"
    group = grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name
    return f"User {user}\nGroup {group}"


def check_server_user(mode: modes.Mode) -> None:
    """Fail early when the user a server drops to cannot import Keystone.

    Apache's workers run as ``www-data``: they must reach the interpreter and
    the venv (a venv under /root is out of reach by default).
    """
    user = server_user(mode)
    if user is None:
        return
    try:
        pwd.getpwnam(user)
    except KeyError:
        raise LaunchError(
            f"mode {mode.name} runs Keystone as {user}, which does not exist "
            "(it comes with the apache2 package)"
        ) from None
    probe = "import keystone, rally_keystone_perf"
    result = subprocess.run(
        ["runuser", "-u", user, "--", sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd="/",
    )
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no output)"])[-1]
        blocked = _first_closed_folder(
            Path(sys.executable), user
        ) or _first_closed_folder(Path(os.path.realpath(sys.executable)), user)
        hint = (
            f"; let it through with: setfacl -m u:{user}:x {blocked}" if blocked else ""
        )
        raise LaunchError(
            f"mode {mode.name} runs Keystone as {user}, who cannot start this "
            f"Python ({sys.executable}): {last}{hint}"
        )


def _first_closed_folder(path: Path, user: str) -> Path | None:
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


def grant_server_user(run: RunDir, user: str) -> None:
    """Let ``user`` (Apache's workers) use the run's database, keys and logs.

    The database folder, the keys and the log folder become the user's; the
    private secrets file (database password), if any, becomes readable by its
    group. The admin password and Rally's files stay ours alone.
    """
    entry = pwd.getpwnam(user)
    for top in (run.db, run.keys, run.logs):
        for path in [top, *top.rglob("*")]:
            os.chown(path, entry.pw_uid, entry.pw_gid)
    secret = run.private / SECRETS_CONF
    if secret.exists():
        os.chown(run.private, 0, entry.pw_gid)
        os.chmod(run.private, 0o710)
        os.chown(secret, 0, entry.pw_gid)
        os.chmod(secret, 0o640)


def template_values(
    run: RunDir,
    options: LaunchOptions,
    port: int,
    settings: Settings | None = None,
    executables: dict[str, Path] | None = None,
    sockets: Path | None = None,
    cache_port: int | None = None,
) -> dict[str, str]:
    """The values every template and process argv may use."""
    if settings is None:
        settings = resolve_settings(modes.get_mode(options.mode), options)
    rounds = options.password_hash_rounds
    # a 30 s busy timeout: SQLite admits one writer at a time, and without it
    # concurrent writes fail at once with "database is locked"
    sqlite = f"sqlite:///{run.db / 'keystone.sqlite'}?timeout=30"
    database_line = (
        f"# ?timeout=30: SQLite's busy timeout for its one writer at a time\n"
        f"connection = {sqlite}"
        if options.db == "sqlite"
        else f"# connection: in {run.private / SECRETS_CONF} (holds the password)"
    )
    socket_dir = sockets or run.root
    values = {
        "run_dir": str(run.root),
        "conf_dir": str(run.conf),
        "log_dir": str(run.logs),
        "python": sys.executable,
        "venv": sys.prefix,
        "keystone_conf": str(run.conf / "keystone.conf"),
        "keystone_config_files": ";".join(str(f) for f in config_files(run)),
        "database_connection_line": database_line,
        "cache_config": cache_config(options, cache_port),
        "fernet_keys": str(run.keys / "fernet"),
        "credential_keys": str(run.keys / "credential"),
        "token_expiration_line": token_expiration_line(options.token_expiration),
        "password_hash_rounds_line": (
            f"# --password-hash-rounds (default: bcrypt's 12)\n"
            f"password_hash_rounds = {rounds}"
            if rounds is not None
            else "# password_hash_rounds: Keystone's default"
        ),
        "host": options.host,
        "port": str(port),
        "processes": str(settings.processes),
        "threads": str(settings.threads),
        "listen_backlog": str(settings.listen_backlog),
        "uwsgi_socket": str(socket_dir / "uwsgi.sock"),
        "sockets_dir": str(socket_dir),
        "user": pwd.getpwuid(os.geteuid()).pw_name,
        "group": grp.getgrgid(os.getegid()).gr_name,
        "apache_user_lines": apache_user_lines(
            server_user(modes.get_mode(options.mode))
        ),
        "apache_modules": APACHE_MODULES,
        "mod_wsgi_so": mod_wsgi_module(),
        **settings.values,
    }
    for name, path in (executables or {}).items():
        values[f"exe_{name.replace('-', '_').replace('.', '_')}"] = str(path)
    return values


def _run_manage(
    run: RunDir, manage: Path, args: list[str], env: dict[str, str] | None = None
) -> None:
    """Run one keystone-manage command, its output appended to a log."""
    log_path = run.logs / "keystone-manage.log"
    files = [arg for f in config_files(run) for arg in ("--config-file", str(f))]
    cmd = [str(manage), *files, *args]
    with open(log_path, "a") as log:
        log.write(f"$ keystone-manage {args[0]}\n")
        log.flush()
        result = subprocess.run(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **services.QUIET_WARNINGS, **(env or {})},
            check=False,
        )
    if result.returncode != 0:
        raise LaunchError(
            f"keystone-manage {args[0]} failed (exit {result.returncode}); "
            f"last lines of its logs:\n{_log_tails(run, MANAGE_LOGS)}"
        )


def enable_sqlite_wal(db_file: Path) -> None:
    """Switch a SQLite database to write-ahead logging (a persistent setting).

    With several server processes, WAL lets readers and one writer proceed
    together; together with the connection's busy timeout it is the least lock
    contention SQLite offers.
    """
    import sqlite3

    with contextlib.closing(sqlite3.connect(db_file)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")


def init_keystone(
    run: RunDir, manage: Path, url: str, password: str, user: str | None = None
) -> None:
    """Create the database, fernet/credential keys and the admin identity.

    The keys belong to ``user`` (default: us), the user Keystone runs as.
    """
    entry = pwd.getpwnam(user) if user else pwd.getpwuid(os.getuid())
    group = grp.getgrgid(entry.pw_gid).gr_name
    owner = ["--keystone-user", entry.pw_name, "--keystone-group", group]
    _run_manage(run, manage, ["db_sync"])
    sqlite = run.db / "keystone.sqlite"
    if sqlite.exists():
        enable_sqlite_wal(sqlite)
    _run_manage(run, manage, ["fernet_setup", *owner])
    _run_manage(run, manage, ["credential_setup", *owner])
    _run_manage(
        run,
        manage,
        [
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
        ],
        # the password goes through the environment, never the command line
        env={"OS_BOOTSTRAP_PASSWORD": password},
    )


def create_user_pool(
    run: RunDir, auth_url: str, size: tuple[int, int], progress: Progress
) -> float:
    """Create the run's user pool while Keystone is stopped; return its seconds.

    See :mod:`rally_keystone_perf.deploy.user_pool`: Keystone's own managers,
    one shared password hash, written to ``private/user-pool.json``.
    """
    tenants, per_tenant = size
    progress(
        f"creating the user pool: {tenants} projects x {per_tenant} users "
        "(Keystone's managers, one shared password hash)"
    )
    files = [arg for f in config_files(run) for arg in ("--config-file", str(f))]
    cmd = [
        sys.executable,
        "-m",
        "rally_keystone_perf.deploy.user_pool",
        *files,
        "--size",
        f"{tenants}x{per_tenant}",
        "--auth-url",
        auth_url,
        "--out",
        str(run.user_pool),
    ]
    started = time.monotonic()
    log_path = run.logs / "user-pool.log"
    with open(log_path, "a") as log:
        result = subprocess.run(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **services.QUIET_WARNINGS},
            check=False,
        )
    seconds = time.monotonic() - started
    if result.returncode != 0:
        raise LaunchError(
            f"creating the user pool failed (exit {result.returncode}); last "
            f"lines of its logs:\n{_log_tails(run, ('user-pool.log', 'keystone.log'))}"
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


def start_processes(
    run: RunDir, mode: modes.Mode, values: dict[str, str], timeout: float
) -> subprocess.Popen[bytes]:
    """Start the mode's processes in order; return the one running Keystone."""
    keystone: subprocess.Popen[bytes] | None = None
    for process in mode.processes:
        argv = [Template(arg).substitute(values) for arg in process.argv]
        proc = services.start(run, process.name, argv, services.QUIET_WARNINGS)
        if process.runs_keystone:
            keystone = proc
            run.write_state(server_pid=proc.pid)
        if process.ready_socket:
            path = Path(values[process.ready_socket])
            services.wait_until(
                functools.partial(services.unix_socket_open, path),
                proc,
                process.name,
                timeout,
                lambda: _server_log_tails(run),
            )
    if keystone is None:
        raise LaunchError(f"mode {mode.name} starts no Keystone process")
    return keystone


def wait_healthy(
    url: str, proc: subprocess.Popen[bytes], run: RunDir, timeout: float
) -> float:
    """Wait until ``url`` answers 200; return seconds waited or raise with logs."""
    try:
        return services.wait_until(
            lambda: services.probe(url) == 200,
            proc,
            "the server",
            timeout,
            lambda: _server_log_tails(run),
            not_ready=f"Keystone did not answer GET {url}",
        )
    except services.ServiceError as exc:
        raise LaunchError(str(exc)) from None


def _server_log_tails(run: RunDir) -> str:
    return _log_tails(run, SERVER_LOGS)


def _log_tails(run: RunDir, names: tuple[str, ...]) -> str:
    """The tails of the run's non-empty logs among ``names``."""
    parts = []
    for name in names:
        path = run.logs / name
        if path.exists() and path.stat().st_size:
            parts.append(f"--- {path}\n{log_tail(path)}")
    return "\n".join(parts) or "(no log was written)"


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _sockets_dir() -> Path:
    """A short folder for unix sockets (paths are capped at 107 bytes).

    0755: servers that drop root (mod_wsgi's daemons) must reach it; each
    socket sets its own permissions.
    """
    folder = Path(tempfile.mkdtemp(prefix="ksp-"))
    folder.chmod(0o755)
    return folder


def _start_backends(
    run: RunDir,
    options: LaunchOptions,
    executables: dict[str, Path],
    sockets: Path,
    progress: Progress,
) -> int | None:
    """Start MariaDB and memcached when asked; return memcached's port."""
    timeout = options.start_timeout or 60.0
    if options.db == "mysql":
        db_port = pick_port(options.host, None)
        progress(f"starting MariaDB on {options.host}:{db_port}")
        _, url = backends.start_mariadb(
            run,
            dict(executables),
            options.host,
            db_port,
            sockets / "mariadb.sock",
            timeout,
        )
        write_secret_config(run, url)
        run.write_state(db_port=db_port)
    if options.cache != "memcached":
        return None
    cache_port = pick_port(options.host, None)
    progress(f"starting memcached on {options.host}:{cache_port}")
    backends.start_memcached(
        run, executables["memcached"], options.host, cache_port, timeout
    )
    return cache_port


def up(
    runs_root: Path,
    options: LaunchOptions,
    progress: Progress = _quiet,
    run: RunDir | None = None,
) -> RunDir:
    """Prepare and start Keystone in a new run folder; stop everything on failure.

    A mode with a ``stack`` (nova-fake) then starts its services too.
    """
    if effective_options(options) != options:
        progress(f"mode {options.mode} runs on --db {effective_options(options).db}")
        options = effective_options(options)
    mode = modes.get_mode(options.mode)
    settings = resolve_settings(mode, options)
    if options.fake_computes != 1 and mode.stack != "nova":
        raise LaunchError(
            f"--fake-computes is for nova-fake; mode {mode.name} has none"
        )
    try:
        nova_config.check_computes(options.fake_computes)
    except nova_config.StackError as exc:
        raise LaunchError(str(exc)) from None
    executables = check_requirements(requirements(options))
    check_server_user(mode)
    orphans.stop_all(runs_root, stop, progress)  # what a killed run left
    port = pick_port(options.host, options.port)
    if run is None:
        run = new_run_dir(runs_root, mode.name)
    else:
        run.create()
    url = f"http://{options.host}:{port}"
    effective = asdict(options) | {
        "port": port,
        "processes": settings.processes,
        "threads": settings.threads,
        "listen_backlog": settings.listen_backlog,
    }
    sockets = _sockets_dir()
    run.write_state(
        status="preparing",
        driver_pid=os.getpid(),  # its death orphans the run (deploy/orphans.py)
        mode=mode.name,
        url=url,
        auth_url=f"{url}/v3",
        options=effective,
        # what --cache rendered, in the report's words (request-local for none)
        keystone_cache=modes.CACHE_LABELS[options.cache],
        profile_values=settings.values,
        somaxconn=settings.somaxconn,
        sockets_dir=str(sockets),
        versions={d: _version(d) for d in VERSIONED},
        created_at=time.time(),
    )
    password = secrets.token_urlsafe(24)
    write_private_json(run.admin_secret, {"username": ADMIN_USER, "password": password})
    try:
        cache_port = _start_backends(run, options, executables, sockets, progress)
        progress(f"rendering {mode.name} configuration in {run.conf}")
        values = template_values(
            run, options, port, settings, executables, sockets, cache_port
        )
        render_templates(run, mode, values, options.keystone_conf_template)
        progress("initialising Keystone (db_sync, fernet keys, bootstrap)")
        runs_as = server_user(mode)
        if runs_as is not None:
            closed = _first_closed_folder(run.conf / "keystone.conf", runs_as)
            if closed is not None:
                raise LaunchError(
                    f"mode {mode.name} runs Keystone as {runs_as}, who cannot "
                    f"reach the run folder {run.root} ({closed} is closed to it); "
                    f"use another --runs-dir or: setfacl -m u:{runs_as}:x {closed}"
                )
            # keystone-manage writes the keys as that user
            entry = pwd.getpwnam(runs_as)
            os.chown(run.keys, entry.pw_uid, entry.pw_gid)
        init_keystone(
            run, executables["keystone-manage"], f"{url}/v3", password, runs_as
        )
        # always at least one user: Rally's env then lists it as an existing
        # user, and Rally's default users context (added to every OpenStack
        # workload) takes it instead of creating and deleting one (~15 s)
        create_user_pool(run, f"{url}/v3", options.user_pool or (1, 1), progress)
        stack = None
        if mode.stack == "nova":
            stack = nova_stack.prepare(
                run,
                options.host,
                config_files(run),
                REGION,
                progress,
                options.fake_computes,
            )
        if runs_as is not None:
            grant_server_user(run, runs_as)
        progress(
            f"starting {mode.name} ({settings.processes} processes x "
            f"{settings.threads} threads) on {url}"
        )
        timeout = options.start_timeout or 60.0 + 3.0 * settings.processes
        proc = start_processes(run, mode, values, timeout)
        run.write_state(status="starting")
        waited = wait_healthy(f"{url}/v3", proc, run, timeout)
        progress(f"Keystone is up at {url}/v3 (healthy after {waited:.1f} s)")
        if stack is not None:
            _start_nova_stack(run, stack, f"{url}/v3", executables, progress)
    except services.ServiceError as exc:
        progress("stopping what was started")
        stop(run)
        run.write_state(status="failed")
        raise LaunchError(str(exc)) from None
    except BaseException:
        progress("stopping what was started")
        stop(run)
        run.write_state(status="failed")
        raise
    write_env_spec(run, f"{url}/v3", password, _first_pool_user(run))
    run.write_state(status="running", started_in=round(waited, 3))
    return run


def _start_nova_stack(
    run: RunDir,
    stack: dict[str, Any],
    auth_url: str,
    executables: dict[str, Path],
    progress: Progress,
) -> None:
    """Start the nova-fake services; print and record their time and memory."""
    timings = nova_stack.start(run, stack, auth_url, executables, progress)
    memory, count = nova_stack.memory_mb(run)
    run.write_state(
        stack={
            "kind": "nova",
            "computes": stack["computes"],
            "seconds": {k: round(v, 1) for k, v in timings.items()},
            "rss_mb": round(memory),
            "processes": count,
        }
    )
    progress(
        f"Nova stack ({stack['computes']} fake compute hosts) up in "
        f"{timings['total']:.0f} s (databases "
        f"{timings['databases']:.0f} s, services {timings['services']:.0f} s); "
        f"memory: {memory:.0f} MB RSS over {count} processes, Keystone and "
        "MariaDB included"
    )


def _first_pool_user(run: RunDir) -> dict[str, str] | None:
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


def stop(run: RunDir, timeout: float = 20.0) -> bool:
    """Stop every process of the run, last started first; True if one ran."""
    state = run.read_state()
    was_running = False
    if state.get("services") or state.get("server_pid"):
        with stop_signals.shielded():  # a stop cut short leaves processes
            was_running = services.stop_all(run, timeout)
    sockets = state.get("sockets_dir")
    if sockets:
        shutil.rmtree(sockets, ignore_errors=True)
    if not was_running and not state.get("services") and not state.get("server_pid"):
        return False
    run.write_state(
        status="stopped",
        server_pid=None,
        services={},
        service_order=[],
        service_tiers={},
        stopped_at=time.time(),
    )
    return was_running


def is_running(run: RunDir) -> bool:
    """True when the run's Keystone process is alive."""
    pid = run.read_state().get("server_pid")
    return pid is not None and services.alive(int(pid))
