"""Start, watch and stop the long-running processes of a run.

Every process starts in its own session (a terminal's Ctrl-C reaches us, not
it, and stopping it can take its whole process group), with its output in
``logs/<name>-stdout.log``. The run's ``run.json`` records each one's pid
under ``services`` and their start order under ``service_order`` so that
``stop`` works from another command too, last started first.
"""

from __future__ import annotations

import concurrent.futures
import os
import pwd
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rally_keystone_perf.layout.rundir import RunDir, RunState

# eventlet's import-time deprecation notice would bury the real error
QUIET_WARNINGS = {"PYTHONWARNINGS": "ignore::DeprecationWarning"}
# environment names run.json must not record (it is not under private/)
SECRET_NAME = re.compile(r"PASS|SECRET|TOKEN|COOKIE|CREDENTIAL", re.IGNORECASE)


class ServiceError(Exception):
    """A process exited or did not become ready; the message says why."""


def start(
    run: RunDir,
    name: str,
    argv: Sequence[str],
    env: dict[str, str] | None = None,
    tier: str | None = None,
    umask: int = -1,
    user: str | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in its own session and record its pid in run.json.

    Processes started one after another with the same ``tier`` depend on
    nothing of each other: :func:`stop_all` stops them together. ``umask``
    (default: ours) for a process that writes under ``private/``; ``user``
    for a server that refuses root (PostgreSQL): it runs as that user, its
    group and no other. ``env`` is recorded in run.json (not private): a
    name that looks like a secret's is refused (ValueError).
    """
    secret = [key for key in env or {} if SECRET_NAME.search(key)]
    if secret:  # run.json is not private: a secret goes through a file
        raise ValueError(f"{name}: a secret in its environment ({secret[0]})")
    out = open(run.logs / f"{name}-stdout.log", "ab")  # noqa: SIM115 - kept by Popen
    try:
        proc = subprocess.Popen(
            list(argv),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=run.root,
            env={**os.environ, **(env or {})},
            umask=umask,
            **as_user(user),
        )
    finally:
        out.close()
    if umask == -1:  # inherited: record ours, for a restart from another process
        umask = current_umask()
    spec = {"argv": list(argv), "env": env or {}, "umask": umask, "user": user}
    record(run, name, proc.pid, tier, spec)
    return proc


def current_umask() -> int:
    """This process's umask, read without changing it (os.umask would, for
    an instant, in every thread); 0o022 where /proc does not say."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    return 0o022


def restart(
    run: RunDir, name: str, extra: Sequence[str] = ()
) -> subprocess.Popen[bytes]:
    """Start ``name`` again as :func:`start` first did (run.json's spec),
    with ``extra`` arguments this once (a Galera bootstrap's).

    The new pid replaces the old one in run.json (a fault hook's restart).
    :raises ServiceError: the run recorded no way to start ``name``.
    """
    spec = (run.state().service_specs or {}).get(name)
    if spec is None:
        raise ServiceError(f"run.json does not say how {name} was started")
    state = run.state()
    tier = (state.service_tiers or {}).get(name)
    old = (state.services or {}).get(name)
    argv = [*spec["argv"], *extra]
    proc = start(run, name, argv, spec["env"], tier, spec["umask"], spec["user"])
    if extra:  # the recorded command stays the usual one
        record_argv(run, name, spec["argv"])
    if old is not None and state.server_pid == old:  # Keystone's own, restarted
        run.write_state(server_pid=proc.pid)
    return proc


def record(
    run: RunDir,
    name: str,
    pid: int,
    tier: str | None = None,
    spec: dict[str, Any] | None = None,
) -> None:
    """Record ``pid`` (a session leader) in run.json: :func:`stop_all` stops it.

    ``spec``: how it was started (argv, the environment added to ours,
    umask, user), for :func:`restart`; never a secret (those stay in files
    under ``private/``).
    """
    with run.locked():
        _record(run, name, pid, tier, spec)


def _record(
    run: RunDir, name: str, pid: int, tier: str | None, spec: dict[str, Any] | None
) -> None:
    state = run.state()
    services = dict(state.services or {})
    services[name] = pid
    specs = dict(state.service_specs or {})
    if spec is not None:
        specs[name] = spec
    # run.json sorts its keys: the start order is kept apart, for stop_all
    order = [n for n in state.service_order or [] if n != name] + [name]
    tiers = dict(state.service_tiers or {})
    if tier is None:
        tiers.pop(name, None)
    else:
        tiers[name] = tier
    run.write_state(
        services=services,
        service_order=order,
        service_tiers=tiers,
        service_specs=specs,
    )


def record_argv(run: RunDir, name: str, argv: Sequence[str]) -> None:
    """Make ``argv`` the command :func:`restart` runs for ``name`` (a
    Galera member started once with ``--wsrep-new-cluster`` rejoins)."""
    with run.locked():
        specs = dict(run.state().service_specs or {})
        specs[name] = {**specs[name], "argv": list(argv)}
        run.write_state(service_specs=specs)


def forget(run: RunDir, name: str) -> None:
    """Drop ``name`` from run.json's processes (it ended on its own)."""
    with run.locked():
        _forget(run, name)


def _forget(run: RunDir, name: str) -> None:
    state = run.state()
    services = dict(state.services or {})
    if services.pop(name, None) is None:
        return
    order = [n for n in state.service_order or [] if n != name]
    tiers = {k: v for k, v in (state.service_tiers or {}).items() if k != name}
    run.write_state(services=services, service_order=order, service_tiers=tiers)


def running(state: RunState) -> list[str]:
    """``name (pid N)`` of each recorded process whose group still runs."""
    return [
        f"{name} (pid {pid})"
        for name, pid in (state.services or {}).items()
        if group_alive(int(pid))
    ]


def run_logged(
    argv: Sequence[str],
    log_path: Path,
    env: dict[str, str] | None = None,
    header: str | None = None,
    stdin: int | None = None,
    cwd: Path | None = None,
    user: str | None = None,
) -> int:
    """Run ``argv`` to its end, its output appended to ``log_path``; its exit code.

    ``header`` (a line) is written before the output; ``env`` is added to
    ours; ``cwd``: where it runs (default: here); ``user``: as :func:`start`.
    Set-up commands only: a long-running process goes to :func:`start`.
    """
    with open(log_path, "a") as log:
        if header is not None:
            log.write(header)
            log.flush()
        result = subprocess.run(
            list(argv),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=stdin,
            env=None if env is None else {**os.environ, **env},
            cwd=cwd,
            check=False,
            **as_user(user),
        )
    return result.returncode


def as_user(user: str | None) -> dict[str, Any]:
    """Popen's arguments to run a child as ``user`` (its own group only)."""
    if user is None:
        return {}
    entry = pwd.getpwnam(user)
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def dying_with_parent(argv: Sequence[str]) -> list[str]:
    """``argv`` under :mod:`.child_guard`: it and all it forks die with us.

    A child that must not outlive the command that started it (Rally and
    its load-generating workers) stops even when that command is killed by
    SIGKILL. Start the result with ``start_new_session`` so the guard leads
    the group it ends.
    """
    return [sys.executable, "-m", "rally_keystone_perf.deploy.child_guard", "--", *argv]


def alive(pid: int) -> bool:
    """True when ``pid`` runs and is not a zombie."""
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


def group_alive(pgid: int) -> bool:
    """True when any process of the process group ``pgid`` exists."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def reap(pid: int) -> None:
    """Collect our own child's exit status so it does not linger as a zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def stop_pid(pid: int, timeout: float = 20.0) -> bool:
    """SIGTERM ``pid``, wait, then SIGKILL its whole group; True if it ran.

    ``pid`` leads its own session (see :func:`start`), so its group is every
    worker it forked, including those that changed user.
    """
    was_running = group_alive(pid)
    if not was_running:
        return False
    try:
        os.kill(pid, signal.SIGTERM)
        os.killpg(pid, signal.SIGCONT)  # a frozen group (a fault) must run to end
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and alive(pid):
        reap(pid)
        time.sleep(0.1)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    reap(pid)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and group_alive(pid):
        time.sleep(0.05)  # SIGKILL is asynchronous: wait for the group to go
    return True


def stop_order(state: RunState) -> list[list[int]]:
    """The pids to stop, last started first, a tier's processes together."""
    services: dict[str, int] = dict(state.services or {})
    order = [n for n in state.service_order or [] if n in services]
    names = order + [n for n in services if n not in order]
    tiers: dict[str, str] = dict(state.service_tiers or {})
    batches: list[list[int]] = []
    previous: str | None = None
    for name in reversed(names):
        tier = tiers.get(name)
        if tier is not None and tier == previous:
            batches[-1].append(int(services[name]))
        else:
            batches.append([int(services[name])])
        previous = tier
    legacy = state.server_pid  # run folders written before services
    if legacy and int(legacy) not in {pid for batch in batches for pid in batch}:
        batches.append([int(legacy)])
    return batches


def stop_all(run: RunDir, timeout: float = 20.0) -> bool:
    """Stop the run's processes, last started first; True if any ran.

    The processes of one tier get SIGTERM together and are waited for
    together (Nova's services each take seconds to shut down gracefully).
    """
    stopped = []
    for batch in stop_order(run.state()):
        if len(batch) == 1:
            stopped.append(stop_pid(batch[0], timeout))
            continue
        with concurrent.futures.ThreadPoolExecutor(len(batch)) as pool:
            stopped += pool.map(lambda pid: stop_pid(pid, timeout), batch)
    return any(stopped)
