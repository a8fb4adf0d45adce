"""A Locust worker that runs this suite's scenarios for a master.

``python -m rally_keystone_perf.loadgen.locust.worker --master HOST:PORT``
(``rally-keystone-perf worker`` runs it). The master starts local workers
itself; on another host, install this package and run the command the
master prints. The worker receives the workload from the master (scenario,
arguments, Rally context with its users and pre-issued tokens), runs its
share of the iterations when told to go, and ships every iteration's Rally
record back; it exits when the master quits or is gone.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import time
from collections.abc import Sequence
from typing import Any

import gevent
import locust  # noqa: F401  (gevent patches sockets before requests and ssl load)
from locust.env import Environment
from locust.runners import WorkerRunner

from rally_keystone_perf.client import keystone_v3, lean_http
from rally_keystone_perf.deploy import child_guard
from rally_keystone_perf.loadgen.locust import iterations, open_load, protocol, users
from rally_keystone_perf.loadgen.locust.local_workers import DIE_WITH_PARENT_ENV

LOG = logging.getLogger("rally_keystone_perf.locust.worker")
FLUSH_EVERY = 0.25  # seconds between two batches of records


class Worker:
    """The worker's side of the messages (:mod:`.protocol`)."""

    def __init__(self, runner: WorkerRunner) -> None:
        self.runner = runner
        self.setup: protocol.Setup | None = None
        self.load: iterations.WorkerLoad | None = None
        runner.register_message(protocol.SETUP, self.on_setup)
        runner.register_message(protocol.GO, self.on_go)
        runner.register_message(protocol.STOP, self.on_stop)

    def on_setup(self, environment: Environment, msg: Any) -> None:
        """Load the workload; say whether its scenario could be imported."""
        try:
            setup = protocol.read_setup(msg.data["setup"])
            iterations.scenario_class(setup)
            iterations.check_ca_bundles(setup.context)
        except Exception as exc:  # the master names this worker and the error
            self._ready(f"{exc!r}")
            return
        if setup.run_name:  # a worker elsewhere: the run's User-Agent all the same
            os.environ[lean_http.RUN_NAME_ENV] = setup.run_name
        self.setup = setup
        self._ready(None)

    def _ready(self, error: str | None) -> None:
        where = {"host": socket.gethostname(), "pid": os.getpid()}
        self.runner.send_message(protocol.READY, {"error": error, **where})

    def on_go(self, environment: Environment, msg: Any) -> None:
        """Start this worker's share at the master's instant."""
        share = iterations.Share.from_go(msg.data, time.time())
        assert self.setup is not None, "go before setup"
        # one kept-alive connection per user, however many users this worker has
        keystone_v3.POOL_SIZE = max(keystone_v3.POOL_SIZE, share.users)
        if self.setup.arrivals is None:
            self.load = iterations.WorkerLoad(self.setup, share, self._ship)
        else:  # open model: a scheduler hands the arrivals to the users
            self.load = load = open_load.OpenLoad(self.setup, share, self._ship)
            gevent.spawn(load.schedule)
        users.CURRENT.set(self.load)
        gevent.spawn(self._report_until_finished, self.load)

    def on_stop(self, environment: Environment, msg: Any) -> None:
        """Start no new iteration; the ones in flight finish and are shipped."""
        if self.load is not None:
            self.load.stopping = True

    def _ship(self, batch: list[dict[str, Any]]) -> None:
        self.runner.send_message(protocol.RECORDS, {"records": batch})
        if self.setup is not None and self.setup.web_ui:
            self._show(batch)  # CPU per iteration only when someone watches

    def _show(self, batch: list[dict[str, Any]]) -> None:
        """Locust's own statistics (its web UI): each iteration and each
        top-level atomic action as one of its requests. The report reads
        the records, never these rounded figures."""
        fire = self.runner.environment.events.request.fire
        scenario = self.setup.scenario if self.setup else "iteration"
        for record in batch:
            failure = RuntimeError(record["error"][1]) if record["error"] else None
            for action in record["atomic_actions"]:
                took = action["finished_at"] - action["started_at"]
                fire(
                    request_type="atomic",
                    name=action["name"],
                    response_time=took * 1000.0,
                    response_length=0,
                    exception=failure if action.get("failed") else None,
                )
            fire(
                request_type="iteration",
                name=scenario,
                response_time=record["duration"] * 1000.0,
                response_length=0,
                exception=failure,
            )

    def _report_until_finished(self, load: iterations.WorkerLoad) -> None:
        while not load.finished.wait(timeout=FLUSH_EVERY):
            load.flush()
        load.flush()
        self.runner.send_message(
            protocol.FINISHED, {"done": load.done, "failed": load.failed}
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Connect to the master and work until it quits."""
    parser = argparse.ArgumentParser(
        prog="rally-keystone-perf worker",
        description="Run this suite's scenarios as a Locust worker of a "
        "rally-keystone-perf master (--engine locust --expect-workers N "
        "prints the command).",
    )
    parser.add_argument("--master", required=True, help="the master's HOST:PORT")
    args = parser.parse_args(argv)
    try:
        host, port = protocol.parse_address(args.master)
    except ValueError as exc:
        parser.error(f"--master: {exc}")
    if os.environ.get(DIE_WITH_PARENT_ENV):
        child_guard.die_with_parent()  # a local worker ends with its master
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s worker %(levelname)s %(message)s",
        force=True,  # Rally's imports leave a handler of their own
    )
    # Rally logs two lines per iteration at INFO; its warnings are enough here
    logging.getLogger("rally").setLevel(logging.WARNING)
    environment = Environment(user_classes=[users.IterationUser])
    runner = environment.create_worker_runner(host, port)
    Worker(runner)
    LOG.info("connected to the master at %s:%d", host, port)
    runner.greenlet.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
