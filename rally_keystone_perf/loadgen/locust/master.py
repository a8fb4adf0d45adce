"""The Locust master of one workload, run by the ``keystone_perf_locust`` runner.

``python -m rally_keystone_perf.loadgen.locust.master``: reads the workload's
:class:`~.protocol.Setup` line on stdin, binds Locust's master, starts the
local workers and waits for every expected one, hands them the workload,
lets Locust spawn the users, then tells every worker to go at one instant
(its share of the iteration budget and its iteration ids with it). Records
come back in batches; each is written on stdout once (a duplicate id is
counted, never written twice). A ``stop`` line or EOF on stdin, SIGTERM or
SIGINT stop the load: no new iteration starts, those in flight finish and
are kept. A worker that dies is named and the others go on. The last line
is the ``end`` event; the exit code is 0 unless the load could not start.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import time
from pathlib import Path
from typing import IO, Any

import gevent
import gevent.event
import locust  # noqa: F401  (gevent patches sockets before requests and ssl load)
from gevent.fileobject import FileObjectPosix
from locust.env import Environment
from locust.runners import STATE_MISSING, MasterRunner

from rally_keystone_perf.loadgen.locust import protocol, shares, users
from rally_keystone_perf.loadgen.locust.local_workers import LocalWorkers, worker_argv

LOG = logging.getLogger("rally_keystone_perf.locust.master")
CONNECT_TIMEOUT = 60.0  # seconds for local workers to connect and load the setup
EXPECT_TIMEOUT = 600.0  # seconds to wait for workers started elsewhere
START_DELAY = 0.5  # seconds between the go message and the common start
STOP_GRACE = 60.0  # seconds the iterations in flight have to finish after a stop
POLL = 0.2


class LoadError(Exception):
    """The load could not start; the message says why."""


class Master:
    """One workload's master: workers, shares, records, the end."""

    def __init__(self, setup: protocol.Setup, out: IO[str]) -> None:
        self.setup = setup
        self.out = out
        self.local = LocalWorkers()
        self.names: dict[str, str] = {}  # Locust client id -> our name for it
        self.ready: dict[str, str | None] = {}  # client id -> setup error
        self.finished: set[str] = set()
        self.lost: dict[str, str] = {}  # client id -> why
        self.seen: set[int] = set()
        self.duplicates = 0
        self.stopping = gevent.event.Event()
        self.environment = Environment(user_classes=[users.IterationUser])
        self.runner: MasterRunner | None = None

    def emit(self, kind: str, **fields: Any) -> None:
        """One event line on stdout."""
        self.out.write(protocol.event_line(kind, **fields))
        self.out.flush()

    def stop(self, reason: str) -> None:
        """Start no new iteration anywhere; keep what is in flight."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        self.emit("stopping", reason=reason)
        if self.runner is not None:
            self.runner.send_message(protocol.STOP, {})

    # --- messages from the workers ------------------------------------
    def on_ready(self, environment: Environment, msg: Any) -> None:
        worker = self.local.by_pid(int(msg.data.get("pid", 0)))
        self.names[msg.node_id] = (
            worker.name
            if worker
            else f"{msg.data.get('host')} (pid {msg.data.get('pid')})"
        )
        self.ready[msg.node_id] = msg.data.get("error")

    def on_records(self, environment: Environment, msg: Any) -> None:
        fresh = []
        for record in msg.data["records"]:
            iteration = record[protocol.ITERATION_KEY]
            if iteration in self.seen:
                self.duplicates += 1
                continue
            self.seen.add(iteration)
            fresh.append(record)
        if fresh:
            self.emit("records", records=fresh)

    def on_finished(self, environment: Environment, msg: Any) -> None:
        self.finished.add(msg.node_id)

    # --- the run ---------------------------------------------------------
    def run(self) -> int:
        """Everything from binding to the end event; the exit code."""
        try:
            counts = self._start()
        except LoadError as exc:
            self.emit("end", error=str(exc), **self._summary())
            self._quit()
            return 1
        self._wait_for_the_end(counts)
        self.emit("end", error=None, **self._summary())
        self._quit()
        return 0

    def _start(self) -> dict[str, int]:
        setup = self.setup
        port = setup.bind_port or free_port(setup.bind_host)
        runner = self.environment.create_master_runner(setup.bind_host, port)
        self.runner = runner
        runner.register_message(protocol.READY, self.on_ready)
        runner.register_message(protocol.RECORDS, self.on_records)
        runner.register_message(protocol.FINISHED, self.on_finished)
        address = f"{setup.bind_host}:{port}"
        expected = setup.workers + len(setup.worker_hosts) + setup.expect_workers
        self.emit("listening", address=address, expected=expected)
        if setup.web_ui:
            host, _, web_port = setup.web_ui.rpartition(":")
            self.environment.create_web_ui(host, int(web_port))
        if setup.expect_workers:
            command = " ".join(["rally-keystone-perf", "worker", "--master", address])
            self.emit("expecting", workers=setup.expect_workers, command=command)
        logs = None if setup.run_dir is None else Path(setup.run_dir) / "logs"
        self.local.start(setup.workers, address, logs)
        for namespace in setup.worker_hosts:
            self.local.start(1, address, logs, namespace)
        LOG.debug("local worker command: %s", worker_argv(address))
        timeout = EXPECT_TIMEOUT if setup.expect_workers else CONNECT_TIMEOUT
        self._wait(lambda: runner.worker_count >= expected, timeout, "connect")
        line = protocol.setup_line(setup).strip()
        for client_id in list(runner.clients):
            runner.send_message(protocol.SETUP, {"setup": line}, client_id=client_id)
        self._wait(
            lambda: len(self.ready) >= expected, CONNECT_TIMEOUT, "load the setup"
        )
        failed = {self.names[c]: e for c, e in self.ready.items() if e}
        if failed:
            raise LoadError(f"workers could not load the workload: {failed}")
        runner.start(setup.users, spawn_rate=max(setup.users, 1))
        counts = {
            c: sum(runner.clients[c].user_classes_count.values()) for c in self.ready
        }
        if sum(counts.values()) != setup.users:
            raise LoadError(f"Locust spawned {counts} users, not {setup.users}")
        self._go(counts)
        return counts

    def _go(self, counts: dict[str, int]) -> None:
        assert self.runner is not None
        start_at = time.time() + START_DELAY
        plan = shares.worker_shares(self.setup, list(counts.values()))
        for client_id, share in zip(counts, plan, strict=True):
            go = {**share, "start_at": start_at, "master_now": time.time()}
            self.runner.send_message(protocol.GO, go, client_id=client_id)
        self.emit(
            "started",
            start_at=start_at,
            workers={self.names[c]: n for c, n in counts.items()},
        )

    def _wait(self, done: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            if self.stopping.is_set():
                raise LoadError(f"stopped while waiting for the workers to {what}")
            dead = self.local.exited()
            if dead:
                raise LoadError(
                    f"{dead[0].name} exited before the load ({_tail(dead[0].log)})"
                )
            if time.monotonic() > deadline:
                raise LoadError(f"the workers did not {what} within {timeout:g} s")
            gevent.sleep(POLL)

    def _wait_for_the_end(self, counts: dict[str, int]) -> None:
        stopped_at: float | None = None
        while waiting := set(counts) - self.finished - set(self.lost):
            if stopped_at is None and self.stopping.is_set():
                stopped_at = time.monotonic()
            late = stopped_at is not None and time.monotonic() > stopped_at + STOP_GRACE
            self._find_lost(waiting, late)
            gevent.sleep(POLL)

    def _find_lost(self, waiting: set[str], late: bool) -> None:
        """Name the workers among ``waiting`` that are gone (or, ``late``,
        that did not finish within the grace after a stop)."""
        assert self.runner is not None
        exited = {w.name: w for w in self.local.exited()}
        for client_id in waiting:
            name = self.names.get(client_id, client_id)
            node = self.runner.clients.get(client_id)
            if name in exited:
                code = exited[name].process.returncode
                why = f"{name} exited with {code} ({_tail(exited[name].log)})"
            elif node is None or node.state == STATE_MISSING:
                why = f"{name} stopped answering the master"
            elif late:
                why = f"{name} did not finish within {STOP_GRACE:g} s of the stop"
            else:
                continue
            self.lost[client_id] = why
            self.emit("lost", worker=name, why=why)

    def _summary(self) -> dict[str, Any]:
        return {
            "iterations": len(self.seen),
            "duplicates": self.duplicates,
            "workers": sorted(self.names.values()),
            "lost": sorted(self.lost.values()),
        }

    def _quit(self) -> None:
        if self.runner is not None:
            self.runner.quit()
        self.local.stop()


def free_port(host: str) -> int:
    """A TCP port free on ``host`` now (the master binds it right after)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _tail(log: Path | None, lines: int = 5) -> str:
    if log is None:
        return "no log"
    try:
        text = log.read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return "no log"
    return " | ".join(text) or "empty log"


def _watch_stdin(master: Master) -> None:
    """``stop`` or EOF on stdin (the plugin aborted, or Rally is gone)."""
    stdin = FileObjectPosix(sys.stdin.fileno(), "r", close=False)
    for line in stdin:
        if line.strip() == protocol.STOP_LINE:
            break
    master.stop("aborted")


def main() -> int:
    """Read the setup line, run the workload, exit."""
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s locust-master %(levelname)s %(message)s",
        force=True,
    )
    line = sys.stdin.readline()
    if not line.strip():
        print("no setup line on stdin", file=sys.stderr)
        return 1
    master = Master(protocol.read_setup(line), sys.stdout)
    for signum in (signal.SIGTERM, signal.SIGINT):
        gevent.signal_handler(signum, master.stop, signal.Signals(signum).name)
    gevent.spawn(_watch_stdin, master)
    return master.run()


if __name__ == "__main__":
    sys.exit(main())
