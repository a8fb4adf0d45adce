"""Sample the run's process trees (CPU, memory) during a run (no Rally imports).

:class:`ResourceSampler` runs one daemon thread that, every ``interval``
seconds, reads each of its :class:`~.process_tree.Target` s (some root
processes and all their descendants, with psutil) and appends one row to the
target's CSV (:mod:`rally_keystone_perf.layout.resources`: names, columns)::

    timestamp,cpu_seconds,rss_bytes,processes
    1718000000.123456,12.34,215748608,3

A single-host run has one target, the server's tree (``server_pid``), in
``<run>/logs/resources.csv``. A cluster run (``--nodes N``) has one target
per tier instead, by the service names run.json records (no
``resources.csv``): ``resources-node1.csv`` ... (every ``node1-*`` service
together: uwsgi, nginx, memcached), ``resources-db.csv`` (MariaDB or
PostgreSQL) and ``resources-haproxy.csv``. A cluster target whose process is
gone looks its name up in run.json again and follows the new pid (a node a
fault hook restarted); meanwhile its rows say 0 processes and its CPU stays
cumulative across the restart. A single host held to ``--node-cpus`` or
``--db-cpus`` has both: ``resources.csv`` and a CSV per tier
(:func:`host_tiers`: ``node1`` for the server and memcached, ``db``), so
its tiers are judged against their quotas as a cluster's are.

Every run also samples its load generator, ``resources-client.csv``:
Rally's process (the ``rally`` service run.json records while a task runs,
followed from one task to the next) and everything it started, Rally's
runner processes or Locust's master and local and namespaced workers,
with the CPU of the children they have waited for
(:mod:`.process_tree`'s reaped count). Workers on other hosts
(``--expect-workers``) are not in it.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.process_tree import Target, children_map
from rally_keystone_perf.layout.names import (
    GALERA_MEMBER,
    NODE,
    NODE_SERVICE,
    node_name,
    number,
)
from rally_keystone_perf.layout.resources import (
    CLIENT_TIER,
    DB_TIER,
    FIELDS,
    GALERA_HAPROXY,
    HAPROXY_TIER,
    RESOURCES_CSV,
    tier_csv,
)
from rally_keystone_perf.layout.rundir import RunDir, RunState

DEFAULT_INTERVAL = 0.5
DB_SERVICES = ("mariadb", "postgresql")  # the cluster's shared database
SINGLE_HOST_CACHE = "memcached"  # a single host's --cache memcached
CLIENT_SERVICE = "rally"  # the client tier's root, Rally's process, in run.json


class ResourceSampler:
    """Samples its targets into their CSVs, all in one thread.

    ``start()`` and ``stop()`` may be called any number of times; the thread
    never raises (processes that vanish or deny access are skipped) and ends
    by itself when every target has ended (a target that follows its
    services by name never does: it runs until stop). Also a context manager.

    ``pause()`` stops the rows until ``resume()`` (:meth:`sampling` does
    both around a block): a Keystone idle while others are measured (a
    study's or an A/B's sides, all up at once) costs the machine nothing to
    watch. Each sample walks every process of the machine; four idle sides
    sampled twice a second took about 16% of a core from the side measured.
    """

    def __init__(
        self, targets: Sequence[Target], interval: float = DEFAULT_INTERVAL
    ) -> None:
        self.targets = list(targets)
        self.interval = interval
        self.rows = 0  # rows written so far, all targets together
        self._error: str | None = None  # what ended the thread, if anything did
        self._stop = threading.Event()
        self._active = threading.Event()  # clear: paused, no rows
        self._active.set()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @classmethod
    def for_pid(
        cls, pid: int, out_csv: Path, interval: float = DEFAULT_INTERVAL
    ) -> ResourceSampler:
        """Sample process ``pid`` and its children (recursively) into ``out_csv``."""
        return cls([Target(out_csv, {str(pid): pid})], interval)

    def __enter__(self) -> ResourceSampler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def error(self) -> str | None:
        """Why sampling ended early (for any target), if it did."""
        errors = [self._error, *(t.error for t in self.targets)]
        return "; ".join(e for e in errors if e) or None

    @property
    def running(self) -> bool:
        """True while the sampling thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> ResourceSampler:
        """Start sampling (once; later calls do nothing)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="resource-sampler", daemon=True
                )
                self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Take a last sample and wait for the thread to end (idempotent).

        Before :meth:`start` there is nothing to stop (and start still works).
        """
        with self._lock:
            thread = self._thread
        if thread is None:
            return
        self._stop.set()
        if thread is not threading.current_thread():
            thread.join(timeout)

    def pause(self) -> None:
        """No rows from the next interval on, until :meth:`resume`."""
        self._active.clear()

    def resume(self) -> None:
        """Rows again, the first within one interval."""
        self._active.set()

    @contextlib.contextmanager
    def sampling(self) -> Iterator[None]:
        """Rows during the block (the load), paused after it."""
        self.resume()
        try:
            yield
        finally:
            self.pause()

    def _loop(self) -> None:
        try:
            with contextlib.ExitStack() as files:
                live = [(t, _open(files, t.out_csv)) for t in self.targets]
                while live:
                    if self._active.is_set():
                        live = self._write(live)
                    if self._stop.wait(self.interval):
                        self._write(live)  # the state at stop
                        break
        except Exception as exc:  # never raise from the thread
            self._error = f"{type(exc).__name__}: {exc}"

    def _write(self, live: list[tuple[Target, Any]]) -> list[tuple[Target, Any]]:
        """One row per target; the targets that have not ended."""
        still = []
        children = children_map()
        for target, (stream, writer) in live:
            row = target.sample(children)
            if row is None:
                continue
            writer.writerow(row)
            stream.flush()
            self.rows += 1
            still.append((target, (stream, writer)))
        return still


def _open(files: contextlib.ExitStack, path: Path) -> tuple[Any, Any]:
    """``path`` opened to append rows (with the header when it is new)."""
    stream = files.enter_context(open(path, "a", newline=""))
    writer = csv.writer(stream, lineterminator="\n")
    if stream.tell() == 0:
        writer.writerow(FIELDS)
        stream.flush()
    return stream, writer


def _recorded_pid(run: RunDir, name: str) -> int | None:
    """The pid run.json records for service ``name`` now."""
    try:
        pid = run.state().services.get(name)
    except (OSError, ValueError):  # written as we read: try again next time
        return None
    return int(pid) if pid else None


def cluster_tiers(services: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """A cluster's services by tier: ``node1`` ... (by number), ``db`` or
    Galera's ``galera1`` ..., ``haproxy`` (and ``haproxy-galera``)."""
    tiers: dict[str, dict[str, int]] = {}
    nodes = [
        (m.group(1), m.group(0)) for m in map(NODE_SERVICE.fullmatch, services) if m
    ]
    for node, name in sorted(nodes, key=lambda n: (number(n[0], NODE), n[1])):
        tiers.setdefault(node, {})[name] = int(services[name])
    database = {n: int(services[n]) for n in DB_SERVICES if n in services}
    if database:
        tiers[DB_TIER] = database
    members = sorted(
        filter(GALERA_MEMBER.fullmatch, services),
        key=lambda n: number(n, GALERA_MEMBER) or 0,
    )
    for name in [*members, HAPROXY_TIER, GALERA_HAPROXY]:
        if name in services:
            tiers[name] = {name: int(services[name])}
    return tiers


def host_tiers(services: Mapping[str, int], server: str) -> dict[str, dict[str, int]]:
    """A single host's services by tier, as ``--node-cpus``/``--db-cpus``
    hold them: ``node1`` (the ``server`` and its memcached, one cgroup) and
    ``db`` (MariaDB or PostgreSQL)."""
    tiers = {}
    node = {n: int(services[n]) for n in (server, SINGLE_HOST_CACHE) if n in services}
    if node:
        tiers[node_name(0)] = node
    database = {n: int(services[n]) for n in DB_SERVICES if n in services}
    if database:
        tiers[DB_TIER] = database
    return tiers


def cluster_targets(run: RunDir, state: RunState) -> list[Target]:
    """One target per tier of a cluster run, following restarted services."""
    lookup = functools.partial(_recorded_pid, run)
    return [
        Target(run.logs / tier_csv(tier), roots, lookup)
        for tier, roots in cluster_tiers(state.services or {}).items()
    ]


def client_target(run: RunDir) -> Target:
    """The load generator's tree: Rally's process of each task in turn."""
    lookup = functools.partial(_recorded_pid, run)
    roots = {CLIENT_SERVICE: _recorded_pid(run, CLIENT_SERVICE)}
    return Target(run.logs / tier_csv(CLIENT_TIER), roots, lookup, reaped=True)


def server_targets(run: RunDir, state: RunState) -> list[Target]:
    """The server's tree (and a quota'd host's tiers), or a cluster's tiers."""
    if state.cluster:
        return cluster_targets(run, state)
    pid = state.server_pid
    if not pid:
        return []
    services = state.services or {}
    named = [n for n, p in services.items() if int(p) == int(pid)]
    if not named:  # not a recorded service: nothing to follow after a restart
        return [Target(run.logs / RESOURCES_CSV, {str(pid): int(pid)})]
    # the server's service, followed when a fault restarts it under a new pid
    lookup = functools.partial(_recorded_pid, run)
    targets = [Target(run.logs / RESOURCES_CSV, {named[0]: int(pid)}, lookup)]
    if state.cpu_quota:  # each tier against its quota, as a cluster's
        tiers = host_tiers(services, named[0])
        targets += [
            Target(run.logs / tier_csv(t), roots, lookup) for t, roots in tiers.items()
        ]
    return targets


def start_for_run(
    run: RunDir, interval: float = DEFAULT_INTERVAL, paused: bool = False
) -> ResourceSampler | None:
    """Start sampling the run's server (or a cluster's tiers) and its load
    generator into logs/ (``paused``: no rows until resumed).

    None when the run records no server pid (no cluster service).
    """
    targets = server_targets(run, run.state())
    if not targets:
        return None
    found = ResourceSampler([*targets, client_target(run)], interval)
    if paused:
        found.pause()
    return found.start()
