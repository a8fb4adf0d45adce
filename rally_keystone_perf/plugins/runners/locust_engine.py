"""The ``keystone_perf_locust`` runner: a workload's iterations on Locust."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from rally import consts
from rally.common import logging
from rally.task import runner

from rally_keystone_perf.client import lean_http
from rally_keystone_perf.deploy import preflight
from rally_keystone_perf.deploy.faults import RUN_ENV
from rally_keystone_perf.loadgen.locust import protocol
from rally_keystone_perf.loadgen.locust.plan import RUNNERS, load_plan

LOG = logging.getLogger(__name__)
MASTER_MODULE = "rally_keystone_perf.loadgen.locust.master"
POLL = 0.2  # seconds between two looks at Rally's abort flag


@runner.configure(name=protocol.LOCUST_RUNNER)
class LocustRunner(runner.ScenarioRunner):
    """Runs the workload's iterations on Locust's master and workers.

    ``rally-keystone-perf run --engine locust`` puts this runner in place of
    the task's own, which it keeps (``runner_type`` and ``runner``): Rally
    still sets up the contexts (users, pre-issued tokens), fires the hooks,
    checks the SLA and stores every iteration; only the iterations run
    elsewhere. The runner starts a Locust master (a child process: Locust's
    gevent never enters Rally), which starts ``workers`` local worker
    processes and one in each of the ``worker_hosts`` (network namespaces
    the run made), waits for ``expect_workers`` more started on other hosts
    (``rally-keystone-perf worker --master HOST:PORT``), hands them the
    workload and its context, and starts them at one instant. The task's
    runner maps to Locust users: ``constant`` -> ``concurrency`` users
    sharing exactly ``times`` iterations; ``constant_for_duration`` -> its
    ``duration``; ``rps`` -> ``times`` iterations at ``rps`` per second;
    ``keystone_perf_arrival_rate`` -> its schedule dealt to the workers,
    ``max_in_flight`` users in all taking its arrivals (open model).
    Each iteration's Rally record (clocks on the master's) comes back
    whole, not as Locust's rounded histogram, with its ``iteration`` id.
    An iteration trigger of a hook fires when that iteration's record
    arrives. A worker that dies is named in Rally's log and in
    ``results/engine/<workload>.json``; its finished iterations are kept.
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "properties": {
            "runner_type": {"enum": list(RUNNERS)},
            "runner": {"type": "object"},
            "workers": {"type": "integer", "minimum": 0, "maximum": 64},
            "worker_hosts": {"type": "array", "items": {"type": "string"}},
            "expect_workers": {"type": "integer", "minimum": 0, "maximum": 1024},
            "bind_host": {"type": "string"},
            "bind_port": {"type": "integer", "minimum": 0, "maximum": 65535},
            "web_ui": {"type": ["string", "null"]},
        },
        "required": ["runner_type", "runner"],
        "additionalProperties": False,
    }

    def _run_scenario(
        self,
        cls: type[Any],
        method_name: str,
        context: dict[str, Any],
        args: dict[str, Any],
    ) -> None:
        """Start the master, feed it the workload, pass its records to Rally.

        Refused, naming the extra, where Locust is not installed (the runner
        itself loads on the core install)."""
        preflight.check_choice_modules("locust")
        setup = self._setup(cls, context, args)
        master = subprocess.Popen(
            [sys.executable, "-m", MASTER_MODULE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert master.stdin is not None and master.stdout is not None
        _tell(master.stdin, protocol.setup_line(setup))
        end = self._pump(master.stdout.fileno(), master.stdin)
        master.stdin.close()
        master.wait()
        self._flush_results()
        self._keep_summary(context, end, master.returncode)

    def _setup(
        self, cls: type[Any], context: dict[str, Any], args: dict[str, Any]
    ) -> protocol.Setup:
        plan = load_plan("runner", self.config["runner_type"], self.config["runner"])
        shipped = {k: v for k, v in context.items() if k not in ("task", "env")}
        shipped["task"] = {"uuid": context["task"]["uuid"]}
        workers = self.config.get("workers", 1)
        hosts = list(self.config.get("worker_hosts", []))
        expect = self.config.get("expect_workers", 0)
        if not (workers or hosts or expect):
            raise ValueError(
                "keystone_perf_locust: no worker to run the load "
                "(workers, worker_hosts and expect_workers are all empty)"
            )
        return protocol.Setup(
            scenario=cls.get_name(),
            module=cls.__module__,
            qualname=cls.__qualname__,
            args=args,
            context=shipped,
            users=plan.users,
            times=plan.times,
            duration=plan.duration,
            rate=plan.rate,
            timeout=plan.timeout,
            arrivals=plan.arrivals,
            seed=plan.seed,
            workers=workers,
            worker_hosts=hosts,
            expect_workers=expect,
            bind_host=self.config.get("bind_host", "127.0.0.1"),
            bind_port=self.config.get("bind_port", 0),
            web_ui=self.config.get("web_ui"),
            run_dir=os.environ.get(RUN_ENV),
            run_name=os.environ.get(lean_http.RUN_NAME_ENV),
        )

    def _pump(self, out: int, into: IO[bytes]) -> dict[str, Any]:
        """Pass the master's records on until it closes its stdout."""
        end: dict[str, Any] = {"error": "the Locust master ended without a word"}
        asked_to_stop = False
        pending = b""
        with selectors.DefaultSelector() as selector:
            selector.register(out, selectors.EVENT_READ)
            while True:
                if self.aborted.is_set() and not asked_to_stop:
                    asked_to_stop = _tell(into, protocol.STOP_LINE + "\n")
                if not selector.select(timeout=POLL):
                    continue
                chunk = os.read(out, 1 << 16)
                if not chunk:
                    return end
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    end = self._line(line.decode(errors="replace")) or end

    def _line(self, line: str) -> dict[str, Any] | None:
        """Act on one line of the master; its end event, else None."""
        event = protocol.read_event(line)
        if event is None:
            LOG.info(line)
        elif event["event"] == "records":
            self._records(event["records"])
        elif event["event"] == "end":
            return event
        elif event["event"] == "expecting":
            LOG.info(
                f"locust: waiting for {event['workers']} worker(s) on other "
                f"hosts; on each, run: {event['command']}"
            )
        else:
            LOG.info(f"locust: {json.dumps(event)}")
        return None

    def _records(self, records: list[dict[str, Any]]) -> None:
        failed = 0
        for record in records:
            self.send_event(type="iteration", value=record[protocol.ITERATION_KEY])
            self._send_result(record)  # type: ignore[arg-type]
            failed += bool(record["error"])
        # one line per batch, which progress counting reads (Rally's runners
        # log one per iteration: oslo.log's formatting cost this process
        # more CPU than storing the record)
        LOG.info(
            f"Task {self.task['uuid']} | ITERATIONS: {len(records)} "
            f"END: {failed} failed"
        )

    def _keep_summary(
        self, context: dict[str, Any], end: dict[str, Any], code: int | None
    ) -> None:
        summary = {"engine": "locust", "exit_code": code, **end}
        summary.pop("event", None)
        for lost in summary.get("lost") or []:
            LOG.error(f"locust: {lost}")
        if summary.get("error"):
            LOG.error(f"locust: {summary['error']}")
        folder = os.environ.get(RUN_ENV)
        if folder:
            out = Path(folder) / "results" / protocol.ENGINE_DIR
            out.mkdir(parents=True, exist_ok=True)
            (out / f"{context['owner_id']}.json").write_text(
                json.dumps(summary, indent=1)
            )


def _tell(into: IO[bytes], text: str) -> bool:
    """Write ``text`` to the master; True once done (or the master is gone)."""
    try:
        into.write(text.encode())
        into.flush()
    except (BrokenPipeError, ValueError):
        pass
    return True
