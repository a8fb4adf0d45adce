"""One worker's share of a workload: which iterations, when, and their records.

Loaded only in a worker process (after Locust's gevent monkeypatching). Each
iteration is Rally's own: :func:`rally.task.runner._run_scenario_once` with
the iteration's context, exactly what Rally's ``constant`` runner calls in its
threads, so a record here is the record Rally would have written (plus its
iteration id). Clocks are moved onto the master's before they are shipped.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gevent
import gevent.event
from rally.common import opts
from rally.task import runner as rally_runner

from rally_keystone_perf.loadgen.locust import protocol

Ship = Callable[[list[dict[str, Any]]], None]


class _NoEvents:
    """Rally's per-iteration event queue; the master sends no hook events."""

    def put(self, item: Any) -> None:
        return None


class IterationTimeout(Exception):
    """An iteration ran over the runner's ``timeout`` (not an OSError: the
    client's transports must not take it for a request's timeout)."""


@dataclass(frozen=True)
class Share:
    """This worker's part of the load, from the master's go message.

    Iteration ``n`` (0-based, local) has id ``first + n * step``; the worker
    runs ``count`` of them (None: until ``deadline``). With a ``rate`` the
    n-th starts ``n / rate`` seconds after ``start_at``.
    """

    users: int
    first: int
    step: int
    count: int | None
    start_at: float  # on this worker's clock
    offset: float  # add to this worker's clock to read the master's
    deadline: float | None = None  # this worker's clock
    rate: float | None = None
    worker: int | None = None  # open model: this worker's place among ...
    workers: int = 1  # ... the workers with users

    @classmethod
    def from_go(cls, go: dict[str, Any], received_at: float) -> Share:
        """The share of a go message received at ``received_at`` (our clock)."""
        offset = go["master_now"] - received_at
        start_at = go["start_at"] - offset
        duration = go.get("duration")
        return cls(
            users=int(go["users"]),
            first=int(go["first"]),
            step=int(go["step"]),
            count=go.get("count"),
            start_at=start_at,
            offset=offset,
            deadline=start_at + duration if duration is not None else None,
            rate=go.get("rate"),
            worker=go.get("worker"),
            workers=int(go.get("workers", 1)),
        )


OPENSTACK_OPTIONS = "rally_openstack.common.cfg.opts:list_opts"


def register_rally_options() -> None:
    """Rally's and rally-openstack's options, at their defaults, as the
    scenarios read them (the run's rally.conf sets only how Rally's
    processes set up and clean up contexts, which stay with Rally)."""
    opts.register()
    opts.register_options_from_path(OPENSTACK_OPTIONS)


def check_ca_bundles(context: dict[str, Any]) -> None:
    """Refuse a workload whose credentials name a CA bundle (``cacert`` of
    clouds.yaml, Rally's ``https_cacert``) this host does not have.

    :raises FileNotFoundError: naming the file and what to do.
    """
    entries = [context.get("admin") or {}, *(context.get("users") or [])]
    for entry in entries:
        credential = entry.get("credential") if isinstance(entry, dict) else None
        path = credential.get("https_cacert") if credential else None
        if path and not os.path.exists(path):
            raise FileNotFoundError(
                f"the target's CA bundle {path} (cacert) is not on this host: "
                "copy it to the same path on every worker host"
            )


def scenario_class(setup: protocol.Setup) -> type:
    """The scenario's class, imported from where Rally registered it."""
    register_rally_options()
    obj: Any = importlib.import_module(setup.module)
    for part in setup.qualname.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[no-any-return]


class WorkerLoad:
    """Hands out this worker's iterations to its users and keeps their records."""

    def __init__(self, setup: protocol.Setup, share: Share, ship: Ship) -> None:
        self.setup = setup
        self.share = share
        self.cls = scenario_class(setup)
        self._ship = ship
        self._next = 0
        self._outbox: list[dict[str, Any]] = []
        self._active = share.users
        self.stopping = False
        self.done = 0
        self.failed = 0
        self.finished = gevent.event.Event()
        if share.users == 0:
            self.finished.set()

    def next_iteration(self) -> int | None:
        """The next iteration's id once it may start (a paced one waits), or
        None when the share is used up, its time is over or the run stops."""
        local = self._next
        if self.stopping or (
            self.share.count is not None and local >= self.share.count
        ):
            return None
        now = time.time()
        if self.share.deadline is not None and now >= self.share.deadline:
            return None
        self._next += 1
        if self.share.rate:
            gevent.sleep(max(0.0, self.share.start_at + local / self.share.rate - now))
            if self.stopping:
                return None
        return self.share.first + local * self.share.step

    def run(self, iteration: int) -> None:
        """Run one iteration as Rally's runner does and keep its record."""
        self.keep(self.record(iteration), iteration)

    def record(self, iteration: int) -> dict[str, Any]:
        """Run one iteration as Rally's runner does; its record (our clock)."""
        context = dict(self.setup.context)  # what the scenario sets stays here
        context["iteration"] = iteration
        overdue = IterationTimeout(
            f"iteration {iteration} ran over the runner's timeout "
            f"({self.setup.timeout:g} s)"
        )
        # raised where the iteration waits, in its own greenlet (a greenlet
        # per iteration cost more than the scenario's Python); Rally records
        # it as the iteration's error, with the atomic actions done by then
        with gevent.Timeout(self.setup.timeout, overdue):
            record = dict(
                rally_runner._run_scenario_once(
                    self.cls, "run", context, self.setup.args, _NoEvents()
                )
            )
        return record

    def keep(self, record: dict[str, Any], iteration: int) -> None:
        """Keep an iteration's record (our clock) for the next batch, on the
        master's clock."""
        record = protocol.shift_record(record, self.share.offset)
        record[protocol.ITERATION_KEY] = iteration
        self.done += 1
        self.failed += bool(record["error"])
        self._outbox.append(record)

    def user_done(self) -> None:
        """One user has no iteration left; the last one finishes the share."""
        self._active -= 1
        if self._active <= 0:
            self.flush()
            self.finished.set()

    def flush(self) -> None:
        """Ship the records kept since the last flush."""
        if self._outbox:
            batch, self._outbox = self._outbox, []
            self._ship(batch)
