"""Render, start, health-check and stop a real local Keystone (no Rally imports)."""

from __future__ import annotations

import contextlib
import errno
import grp
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from string import Template

from rally_keystone_perf import paths
from rally_keystone_perf.deploy import modes
from rally_keystone_perf.deploy.rundir import RunDir, new_run_dir, write_private_json

ADMIN_USER = "admin"
ADMIN_PROJECT = "admin"
REGION = "RegionOne"
LOG_TAIL_LINES = 25

Progress = Callable[[str], None]
# keystone-manage logs its errors to keystone.log (log_file), not its output
MANAGE_LOGS = ("keystone-manage.log", "keystone.log")
SERVER_LOGS = ("uwsgi.log", "keystone.log", "server-stdout.log")
# eventlet's import-time deprecation notice would bury the real error
QUIET_WARNINGS = {"PYTHONWARNINGS": "ignore::DeprecationWarning"}


class LaunchError(Exception):
    """Keystone could not be prepared or started; the message says why."""


@dataclass(frozen=True)
class LaunchOptions:
    """What to start: mode, parallelism and the Keystone settings a run varies."""

    mode: str = modes.DEFAULT_MODE
    host: str = "127.0.0.1"
    port: int | None = None
    processes: int = 2
    threads: int = 1
    listen_backlog: int = 100
    password_hash_rounds: int | None = None
    token_expiration: int = 3600
    start_timeout: float = 60.0


def _quiet(_: str) -> None:
    """Progress sink that prints nothing."""


def find_executable(req: modes.Requirement) -> Path:
    """Locate ``req`` beside the interpreter (venv) or on PATH."""
    candidate = paths.venv_bin(req.executable)
    if req.in_venv and candidate.is_file() and os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which(req.executable)
    if found:
        return Path(found)
    raise LaunchError(
        f"{req.executable} is not installed; install it with: {req.install_hint}"
    )


def check_requirements(mode: modes.Mode) -> dict[str, Path]:
    """Return every executable ``mode`` needs, or raise naming what is missing."""
    return {req.executable: find_executable(req) for req in mode.requirements}


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


def render_templates(run: RunDir, mode: modes.Mode, values: dict[str, str]) -> None:
    """Render the mode's templates into ``run.conf``."""
    root = paths.deployments_dir()
    for template, target in mode.templates.items():
        text = Template((root / template).read_text()).substitute(values)
        (run.conf / target).write_text(text)


def template_values(run: RunDir, options: LaunchOptions, port: int) -> dict[str, str]:
    """The values every template may use."""
    rounds = options.password_hash_rounds
    return {
        "run_dir": str(run.root),
        "log_dir": str(run.logs),
        "keystone_conf": str(run.conf / "keystone.conf"),
        "database_connection": f"sqlite:///{run.db / 'keystone.sqlite'}?timeout=30",
        "fernet_keys": str(run.keys / "fernet"),
        "credential_keys": str(run.keys / "credential"),
        "token_expiration": str(options.token_expiration),
        "password_hash_rounds_line": (
            f"password_hash_rounds = {rounds}"
            if rounds is not None
            else "# password_hash_rounds: Keystone's default"
        ),
        "host": options.host,
        "port": str(port),
        "processes": str(options.processes),
        "threads": str(options.threads),
        "listen_backlog": str(options.listen_backlog),
    }


def _run_manage(
    run: RunDir, manage: Path, args: list[str], env: dict[str, str] | None = None
) -> None:
    """Run one keystone-manage command, its output appended to a log."""
    log_path = run.logs / "keystone-manage.log"
    cmd = [str(manage), "--config-file", str(run.conf / "keystone.conf"), *args]
    with open(log_path, "a") as log:
        log.write(f"$ keystone-manage {args[0]}\n")
        log.flush()
        result = subprocess.run(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **QUIET_WARNINGS, **(env or {})},
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


def init_keystone(run: RunDir, manage: Path, url: str, password: str) -> None:
    """Create the database, fernet/credential keys and the admin identity."""
    user = pwd.getpwuid(os.getuid()).pw_name
    group = grp.getgrgid(os.getgid()).gr_name
    owner = ["--keystone-user", user, "--keystone-group", group]
    _run_manage(run, manage, ["db_sync"])
    enable_sqlite_wal(run.db / "keystone.sqlite")
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


def start_server(run: RunDir, uwsgi: Path) -> subprocess.Popen[bytes]:
    """Start uwsgi in its own session so a terminal Ctrl-C reaches us, not it."""
    out = open(run.logs / "server-stdout.log", "ab")  # noqa: SIM115 - kept by Popen
    try:
        return subprocess.Popen(
            [str(uwsgi), "--ini", str(run.conf / "uwsgi.ini")],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=run.root,
        )
    finally:
        out.close()


def probe(url: str, timeout: float = 2.0) -> int | None:
    """HTTP status of GET ``url``, or None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return None


def wait_healthy(
    url: str, proc: subprocess.Popen[bytes], run: RunDir, timeout: float
) -> float:
    """Wait until ``url`` answers 200; return seconds waited or raise with logs."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            raise LaunchError(
                f"the server exited with code {proc.returncode} while starting; "
                f"last lines of its logs:\n{_server_log_tails(run)}"
            )
        if probe(url) == 200:
            return time.monotonic() - started
        time.sleep(0.25)
    raise LaunchError(
        f"Keystone did not answer GET {url} within {timeout:.0f} s; "
        f"last lines of its logs:\n{_server_log_tails(run)}"
    )


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


def up(
    runs_root: Path,
    options: LaunchOptions,
    progress: Progress = _quiet,
    run: RunDir | None = None,
) -> RunDir:
    """Prepare and start Keystone in a new run folder; stop everything on failure."""
    mode = modes.get_mode(options.mode)
    executables = check_requirements(mode)
    port = pick_port(options.host, options.port)
    if run is None:
        run = new_run_dir(runs_root, mode.name)
    else:
        run.create()
    url = f"http://{options.host}:{port}"
    run.write_state(
        status="preparing",
        mode=mode.name,
        url=url,
        auth_url=f"{url}/v3",
        options=asdict(options) | {"port": port},
        versions={d: _version(d) for d in ("keystone", "uwsgi", "rally")},
        created_at=time.time(),
    )
    password = secrets.token_urlsafe(24)
    write_private_json(run.admin_secret, {"username": ADMIN_USER, "password": password})
    try:
        progress(f"rendering {mode.name} configuration in {run.conf}")
        render_templates(run, mode, template_values(run, options, port))
        progress("initialising Keystone (db_sync, fernet keys, bootstrap)")
        init_keystone(run, executables["keystone-manage"], f"{url}/v3", password)
        progress(
            f"starting {mode.name} ({options.processes} processes x "
            f"{options.threads} threads) on {url}"
        )
        proc = start_server(run, executables["uwsgi"])
        run.write_state(status="starting", server_pid=proc.pid)
        waited = wait_healthy(f"{url}/v3", proc, run, options.start_timeout)
    except BaseException:
        stop(run)
        run.write_state(status="failed")
        raise
    write_env_spec(run, f"{url}/v3", password)
    run.write_state(status="running", started_in=round(waited, 3))
    progress(f"Keystone is up at {url}/v3 (healthy after {waited:.1f} s)")
    return run


def write_env_spec(run: RunDir, auth_url: str, password: str) -> None:
    """Write the Rally ``existing@openstack`` spec for this instance (private)."""
    spec = {
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
    write_private_json(run.env_spec, spec)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            # the command name (2nd field) may hold spaces: split after it
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def stop(run: RunDir, timeout: float = 20.0) -> bool:
    """Stop the run's server and every process of its group; True if one ran."""
    state = run.read_state()
    pid = state.get("server_pid")
    if not pid:
        return False
    was_running = _group_alive(pid)
    if was_running:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and _alive(pid):
            _reap(pid)
            time.sleep(0.1)
        # whatever is left of the group (workers, router) goes too
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _reap(pid)
    run.write_state(status="stopped", server_pid=None, stopped_at=time.time())
    return was_running


def _reap(pid: int) -> None:
    """Collect our own child's exit status so it does not linger as a zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def is_running(run: RunDir) -> bool:
    """True when the run's server process is alive."""
    pid = run.read_state().get("server_pid")
    return pid is not None and _alive(int(pid))
