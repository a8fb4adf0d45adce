"""How fast the open-model generator keeps its schedule on the Locust engine.

Starts nginx answering every request with one small JSON document
(``benchmarks/static-nginx.conf.tmpl``: the cheapest server here, so that
the generator, not the server, is measured), then runs
``KeystonePerf.list_projects`` (one ``GET /v3/projects`` each, the
suite's own client) under the ``keystone_perf_arrival_rate`` schedule on
the Locust engine's master with ``--workers`` local workers, at each rate
of ``--rates`` in turn for ``--seconds`` each, and stops after the first
rate whose scheduling lag p99 passes 5 ms (the report's limit,
:data:`rally_keystone_perf.report.figures.open_model.LATE`). No Rally and no
Keystone: the master is handed the workload as the ``keystone_perf_locust``
runner would hand it (:class:`~rally_keystone_perf.loadgen.locust.protocol.Setup`),
its context a credential and a token nginx ignores.

Prints per rate the iterations due, started and dropped, the lag p50/p99,
the share of starts over 5 ms late and the service and response p50/p99
(ms): where the lag stays under 5 ms, the generator keeps its schedule at
that rate on this machine (issue 40's target: 500 a second with 2 workers).

Usage: python -m benchmarks.generator_lag [--rates 100,200,300,400,500,600,800]
[--seconds 10] [--workers 2] [--max-in-flight 64]
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from string import Template
from typing import Any

from prettytable import PrettyTable
from rally_openstack.common.credential import OpenStackCredential

from benchmarks.harness import echo
from rally_keystone_perf.deploy.preflight import pick_port
from rally_keystone_perf.loadgen.locust import protocol
from rally_keystone_perf.plugins.contexts.tokens import CONTEXT_NAME as TOKENS
from rally_keystone_perf.plugins.scenarios.identity import ListProjects
from rally_keystone_perf.report.blocks.numbers import format_ms
from rally_keystone_perf.report.figures import open_model
from rally_keystone_perf.report.readers import rally_json

TEMPLATE = Path(__file__).with_name("static-nginx.conf.tmpl")
MASTER_MODULE = "rally_keystone_perf.loadgen.locust.master"
START_TIMEOUT = 10.0  # seconds for nginx to listen


@contextlib.contextmanager
def static_server(root: Path) -> Iterator[str]:
    """nginx answering every request with a static JSON document; its
    identity URL (stopped on exit)."""
    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if nginx is None:
        raise SystemExit("nginx is not installed (apt-get install nginx)")
    port = pick_port("127.0.0.1", None)
    (root / "tmp").mkdir(parents=True)
    conf = root / "nginx.conf"
    conf.write_text(Template(TEMPLATE.read_text()).substitute(root=root, port=port))
    server = subprocess.Popen(
        [nginx, "-p", str(root), "-c", str(conf)], stderr=subprocess.DEVNULL
    )
    try:
        _wait_listening(server, port, root / "error.log")
        yield f"http://127.0.0.1:{port}/v3"
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _wait_listening(server: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise SystemExit(f"nginx exited with {server.returncode}:\n{tail}")
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", port), timeout=1),
        ):
            return
        time.sleep(0.1)
    raise SystemExit(f"nginx did not listen on port {port} within {START_TIMEOUT} s")


def workload(url: str, rate: float, args: argparse.Namespace) -> protocol.Setup:
    """list_projects at ``rate`` a second against ``url``, open model."""
    credential = OpenStackCredential(url, "admin", "unused by nginx")
    context = {
        "task": {"uuid": "generator-lag"},
        "admin": {"credential": credential},
        TOKENS: {"admin": "unused-by-nginx", "refresh": False},
    }
    return protocol.Setup(
        scenario=ListProjects.get_name(),
        module=ListProjects.__module__,
        qualname=ListProjects.__qualname__,
        args={},
        context=context,
        users=args.max_in_flight,
        duration=float(args.seconds),
        rate=rate,
        arrivals="constant",
        workers=args.workers,
    )


def run_load(setup: protocol.Setup) -> list[dict[str, Any]]:
    """The iteration records of one workload on a Locust master."""
    process = subprocess.Popen(
        [sys.executable, "-m", MASTER_MODULE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    records: list[dict[str, Any]] = []
    end: dict[str, Any] = {"error": "the master ended without a word"}
    try:
        process.stdin.write(protocol.setup_line(setup))
        process.stdin.flush()
        for line in process.stdout:
            event = protocol.read_event(line) or {"event": None}
            if event["event"] == "records":
                records += event["records"]
            elif event["event"] == "end":
                end = event
    finally:  # Ctrl-C: the master stops its workers on EOF
        process.stdin.close()
        process.wait()
    if end.get("error") or end.get("lost"):
        raise SystemExit(f"the load failed: {end.get('error') or end.get('lost')}")
    return records


def main(argv: list[str] | None = None) -> int:
    """Run each rate until the lag p99 passes the limit; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rates", default="100,200,300,400,500,600,800")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-in-flight", type=int, default=64)
    args = parser.parse_args(argv)
    rates = [float(r) for r in args.rates.split(",")]
    table = PrettyTable(
        [
            "rate/s",
            "due",
            "started",
            "dropped",
            "lag p50",
            "lag p99",
            "late",
            "service p50",
            "service p99",
            "response p99",
        ]
    )
    with tempfile.TemporaryDirectory() as folder:
        with static_server(Path(folder)) as url:
            for rate in rates:
                echo(f"{rate:g}/s for {args.seconds} s, {args.workers} workers")
                records = run_load(workload(url, rate, args))
                iterations = [
                    rally_json.read_iteration(r, f"iteration {n}")
                    for n, r in enumerate(records)
                ]
                model = open_model.summary(iterations, rate, args.max_in_flight)
                table.add_row(
                    [
                        f"{rate:g}",
                        model.due,
                        model.due - model.dropped,
                        model.dropped,
                        format_ms(model.lag[0]),
                        format_ms(model.lag[1]),
                        f"{model.late_share:.0%}",
                        format_ms(model.service[0]),
                        format_ms(model.service[2]),
                        format_ms(model.response[2]),
                    ]
                )
                if model.lag[1] is None or model.lag[1] > open_model.LATE:
                    break
    print(
        f"open-model generator on the Locust engine, {args.workers} workers, "
        f"max_in_flight {args.max_in_flight}, {args.seconds} s a rate, against "
        "nginx's static JSON (ms)"
    )
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
