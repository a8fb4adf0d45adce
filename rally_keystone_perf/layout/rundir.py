"""Layout of one run folder: everything a run needs and leaves lives here."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

PRIVATE_MODE = 0o700
PRIVATE_UMASK = 0o077  # what is written under private/ is its owner's alone
_HELD = threading.local()  # the run.json locks this thread holds (RunDir.locked)

# What a run folder holds, path by path (the docs' reference table; a unit
# test checks that every path a RunDir names is here)
LAYOUT = (
    ("runs/current", "a link to the newest run folder under ``--runs-dir``"),
    (
        "run.json",
        "mode, options, versions, URL, pids, state (``RunState``), and "
        "``machine``: the machine's speed probe before and after the load and "
        "the CPU the hypervisor stole meanwhile",
    ),
    ("conf/", "keystone.conf and the mode's server configs, as rendered"),
    (
        "logs/",
        "keystone.log, the servers' logs, access.log (server time per request), "
        "rally.log (passwords redacted), resources.csv (the server's CPU and "
        "memory every 0.5 s), resources-client.csv (Rally and all it started), "
        "faults.jsonl (the ``keystone_perf_fault`` hook's faults); a cluster: "
        "node<K>/, haproxy-stdout.log, resources-node<K>.csv, resources-db.csv, "
        "resources-haproxy.csv; ``--db galera``: galera<K>.log, "
        "resources-galera<K>.csv, haproxy-galera-stdout.log",
    ),
    ("results/", "Rally's JSON reports (format 1.2), one per task file"),
    (
        "results/engine/",
        "``--engine locust``: how each workload's load ran (workers, a dead "
        "worker named), ``<workload uuid>.json``",
    ),
    ("locust-tasks/", "``--engine locust``: the task files as rewritten for Locust"),
    (
        "private/",
        "0700, files 0600: the admin password, Rally's environment spec and "
        "database, the user pool, a Nova stack's configs (``stack/``); "
        "``--os-cloud``: the cloud's passwords (``target.json``)",
    ),
    ("keys/", "0700: fernet, credential and JWS keys"),
    (
        "db/",
        "Keystone's SQLite database, or the MariaDB or PostgreSQL datadir; "
        "slapd's database (``db/ldap``)",
    ),
    ("nodes/", "a cluster (``--nodes N``): node<K>/, each node's own run folder"),
    ("traces/", "``--trace``: traces.jsonl.gz, the traces kept when redis stops"),
    ("stack/", "``--mode nova-fake``: the services' files that hold no secret"),
    (
        "suite-code/",
        "``--keystone-build``: a link to the suite's package, the only part of "
        "the suite on the build's path (its WSGI wrapper, trace driver, user pool)",
    ),
)


@dataclass(frozen=True)
class RunDir:
    """Paths inside a run folder.

    ``private/`` (mode 0700) holds the generated admin password, the Rally
    environment spec and Rally's database: nothing there is ever printed.
    """

    root: Path

    @property
    def conf(self) -> Path:
        return self.root / "conf"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def keys(self) -> Path:
        return self.root / "keys"

    @property
    def private(self) -> Path:
        return self.root / "private"

    @property
    def results(self) -> Path:
        return self.root / "results"

    @property
    def db(self) -> Path:
        return self.root / "db"

    @property
    def state_file(self) -> Path:
        return self.root / "run.json"

    @property
    def access_log(self) -> Path:
        return self.logs / "access.log"

    @property
    def admin_secret(self) -> Path:
        return self.private / "admin.json"

    @property
    def target_secret(self) -> Path:
        """``--os-cloud``: the cloud's passwords, for redaction (run/own_cloud)."""
        return self.private / "target.json"

    @property
    def env_spec(self) -> Path:
        return self.private / "rally-env.json"

    @property
    def user_pool(self) -> Path:
        """Pre-created users and their shared password (deploy/user_pool.py)."""
        return self.private / "user-pool.json"

    @property
    def scope_grants(self) -> Path:
        """Role grants made and not yet revoked (layout/grant_ledger.py)."""
        return self.private / "scope-grants.json"

    @property
    def stack_plan(self) -> Path:
        """A Nova stack's ports and generated passwords (deploy/nova/stack.py)."""
        return self.private / "stack.json"

    def create(self) -> None:
        """Create the folder tree; secrets and keys are private to the owner."""
        for path in (self.conf, self.logs, self.results, self.db):
            path.mkdir(parents=True, exist_ok=True)
        for path in (self.keys, self.private):
            path.mkdir(parents=True, exist_ok=True)
            os.chmod(path, PRIVATE_MODE)

    def read_state(self) -> dict[str, Any]:
        """The run's recorded state as run.json holds it ({} when none was written).

        For code outside deploy/ that has not moved to :meth:`state` yet.
        """
        return self.state().to_json()

    def state(self) -> RunState:
        """The run's recorded state (empty when none was written)."""
        try:
            data = json.loads(self.state_file.read_text())
        except FileNotFoundError:
            data = {}
        return RunState.from_json(data, self)

    def write_state(self, **changes: Any) -> dict[str, Any]:
        """Merge ``changes`` (:class:`RunState` fields) into run.json; return it.

        Written atomically, under :meth:`locked`. :raises TypeError: a key
        RunState does not have.
        """
        with self.locked():
            state = self.state().merge(changes, updated_at=time.time())
            data = state.to_json()
            tmp = self.state_file.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
            tmp.replace(self.state_file)
        return data

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold run.json's lock: a read-modify-write inside the block is not
        lost to another process's (a Rally hook restarting a node while the
        command records its own state). Reentrant within a thread."""
        key = os.path.realpath(self.state_file)
        held: set[str] = _HELD.__dict__.setdefault("paths", set())
        if key in held:
            yield
            return
        with open(self.root / ".run.json.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            held.add(key)
            try:
                yield
            finally:
                held.discard(key)


@dataclass
class RunState:
    """run.json: what a run started, where, and how it went.

    The file holds only the keys written so far (a run that failed early has
    no ``server_pid``); :meth:`to_json` gives exactly those back, and keys
    this version does not know (a newer run folder's) are kept as they are.
    """

    status: str | None = None  # preparing, starting, running, failed, stopped
    mode: str | None = None
    url: str | None = None
    auth_url: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # effective options
    keystone_cache: str | None = None  # the report's words for --cache
    profile_values: dict[str, str] = field(default_factory=dict)
    somaxconn: int | None = None
    sockets_dir: str | None = None
    versions: dict[str, str | None] = field(default_factory=dict)
    # --keystone-build: spec, kind, version, source, key, venv (deploy/builds)
    keystone_build: dict[str, Any] | None = None
    created_at: float | None = None
    updated_at: float | None = None
    started_in: float | None = None  # seconds until Keystone answered
    ready_in: float | None = None  # seconds from launcher.up's call to running
    stopped_at: float | None = None
    driver_pid: int | None = None  # the command whose end stops the run
    server_pid: int | None = None  # the process tree running Keystone
    db_port: int | None = None
    ldap_port: int | None = None  # --identity ldap: the run's slapd
    services: dict[str, int] = field(default_factory=dict)  # name -> pid
    service_order: list[str] = field(default_factory=list)  # start order
    service_tiers: dict[str, str] = field(default_factory=dict)
    service_specs: dict[str, dict[str, Any]] = field(default_factory=dict)  # restart
    user_pool: dict[str, Any] | None = None  # projects, users_per_project, seconds
    stack: dict[str, Any] | None = None  # kind, computes, seconds, rss_mb, processes
    cluster: dict[str, Any] | None = None  # network (deploy/cluster), ports, balance
    cpu_quota: dict[str, Any] | None = None  # deploy/cluster/cgroups.CpuQuota
    # --worker-hosts: the load generator's namespaces (deploy/cluster/client_hosts)
    client_network: dict[str, Any] | None = None
    trace_backend: str | None = None  # --trace: OSProfiler's redis URL
    cpus: int | None = None  # the machine's CPUs (the report's bottleneck line)
    # the machine's own speed around the load (deploy/machine_probe.py)
    machine: dict[str, Any] | None = None
    # --os-cloud: the cloud measured (deploy/own_cloud: never a secret), the
    # plan printed before the load, and what the sweep found left after it
    target: dict[str, Any] | None = None
    target_sweep: dict[str, Any] | None = None
    target_server_log: dict[str, Any] | None = None  # --server-log (report/own_cloud)
    # capacity: each step's number, rate, report and the speed probe before it
    capacity_steps: list[dict[str, Any]] | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    written: set[str] = field(default_factory=set, repr=False, compare=False)
    run: RunDir | None = field(default=None, repr=False, compare=False)

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The run.json keys a RunState knows."""
        return tuple(f.name for f in fields(cls) if f.name not in _NOT_KEYS)

    @classmethod
    def from_json(cls, data: dict[str, Any], run: RunDir | None = None) -> RunState:
        """A RunState from run.json's object (an old file's too)."""
        known = set(cls.keys())
        state = cls(run=run)
        state.extra = {k: v for k, v in data.items() if k not in known}
        return state.merge({k: v for k, v in data.items() if k in known})

    def merge(self, changes: dict[str, Any], **more: Any) -> RunState:
        """Set ``changes`` (and ``more``) as written; return self.

        :raises TypeError: a key RunState does not have.
        """
        known = set(self.keys())
        for key, value in {**changes, **more}.items():
            if key not in known:
                raise TypeError(f"run.json has no key {key!r}")
            setattr(self, key, value)
            self.written.add(key)
        return self

    def to_json(self) -> dict[str, Any]:
        """The keys written, as run.json holds them."""
        data = dict(self.extra)
        data.update({key: getattr(self, key) for key in self.written})
        return data

    def secrets(self) -> list[str]:
        """Every password the run generated: admin, user pool, a Nova stack,
        the database's (MariaDB, PostgreSQL), slapd's admin DN's and
        ``--trace``'s HMAC key.

        Each lives in a private file of its own format; none is in run.json.
        """
        if self.run is None:
            return []
        found = []
        if self.run.admin_secret.is_file():  # not in an --os-cloud run
            found.append(_read_json(self.run.admin_secret)["password"])
        if self.run.target_secret.is_file():  # an --os-cloud run's passwords
            found += _read_json(self.run.target_secret)["passwords"]
        if self.run.stack_plan.is_file():
            plan = _read_json(self.run.stack_plan)
            found += [plan[k] for k in STACK_SECRETS]
        if self.run.user_pool.is_file():
            found.append(_read_json(self.run.user_pool)["password"])
        for name in BACKEND_SECRETS:
            path = self.run.private / name
            if path.is_file():
                found.append(_read_json(path)["password"])
        key = self.run.private / TRACE_KEY  # --trace's HMAC key
        if key.is_file():
            found.append(key.read_text().strip())
        return found


_NOT_KEYS = {"extra", "written", "run"}
# the Nova stack's generated passwords in private/stack.json
STACK_SECRETS = ("service_password", "db_password", "rabbit_password")
# {"password": ...} files of the database (deploy/backends.py, postgresql.py)
# and of slapd's admin DN (deploy/ldap.py)
BACKEND_SECRETS = ("db.json", "ldap.json")
TRACE_KEY = "profiler-hmac-key"  # --trace's HMAC key (deploy/tracing/profiler.py)


def _read_json(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text()))


def write_private_json(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` to ``path`` readable by the owner only."""
    write_private_text(path, json.dumps(data, indent=2) + "\n")


def write_private_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, created 0600 (never readable by others)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # also when the file existed with a wider mode
    with os.fdopen(fd, "w") as stream:
        stream.write(text)


def new_run_dir(runs_root: Path, mode: str) -> RunDir:
    """Create ``<runs_root>/<timestamp>-<mode>`` and point ``current`` at it."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    root = runs_root / f"{stamp}-{mode}"
    suffix = 1
    while root.exists():
        suffix += 1
        root = runs_root / f"{stamp}-{mode}-{suffix}"
    run = RunDir(root.resolve())
    run.create()
    link = runs_root / "current"
    if link.is_symlink() or not link.exists():
        tmp = runs_root / ".current.tmp"
        if tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(root.name)
        tmp.replace(link)
    return run


@contextlib.contextmanager
def private_umask() -> Iterator[None]:
    """Files this process creates inside the block are 0600 (folders 0700)."""
    before = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(before)
