"""Start a mode's Keystone processes and wait until Keystone answers.

Used for the one Keystone of a run and for each node of a cluster: a node's
processes are named after it (``node2-uwsgi``) and run inside its network
namespace (an ``ip netns exec`` prefix).
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Sequence
from pathlib import Path
from string import Template

from rally_keystone_perf.deploy import logtail, modes, probes, services
from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.layout.rundir import RunDir

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


def server_log_tails(run: RunDir, node: str = "") -> str:
    """The last lines of the servers' logs; a node's are in ``logs/<node>/``
    (its processes' output in ``logs/<node>-<process>-stdout.log``)."""
    if not node:
        return logtail.log_tails(run, SERVER_LOGS)
    own = [f"{node}/{name}" for name in SERVER_LOGS if "stdout" not in name]
    output = [f"{node}-{name}" for name in SERVER_LOGS if "stdout" in name]
    return logtail.log_tails(run, [*own, *output])


def start_processes(
    run: RunDir,
    mode: modes.Mode,
    values: dict[str, str],
    timeout: float,
    node: str = "",
    prefix: Sequence[str] = (),
) -> subprocess.Popen[bytes]:
    """Start the mode's processes in order; return the one running Keystone.

    ``node`` (a cluster's, e.g. ``node2``) prefixes the processes' names;
    ``prefix`` runs them inside its namespace. The first Keystone started is
    the run's ``server_pid`` (the resource sampler's tree).
    """
    keystone: subprocess.Popen[bytes] | None = None
    env = dict(services.QUIET_WARNINGS)
    if values.get("keystone_pythonpath"):  # a --keystone-build's processes
        env["PYTHONPATH"] = values["keystone_pythonpath"]
    for process in mode.processes:
        argv = [*prefix, *(Template(arg).substitute(values) for arg in process.argv)]
        name = f"{node}-{process.name}" if node else process.name
        proc = services.start(run, name, argv, env)
        if process.runs_keystone:
            keystone = proc
            if not run.state().server_pid:
                run.write_state(server_pid=proc.pid)
        if process.ready_socket:
            path = Path(values[process.ready_socket])
            probes.wait_until(
                functools.partial(probes.unix_socket_open, path),
                proc,
                name,
                timeout,
                lambda: server_log_tails(run, node),
            )
    if keystone is None:
        raise LaunchError(f"mode {mode.name} starts no Keystone process")
    return keystone


def wait_healthy(
    url: str, proc: subprocess.Popen[bytes], run: RunDir, timeout: float
) -> float:
    """Wait until ``url`` answers 200; return seconds waited or raise with logs."""
    try:
        return probes.wait_until(
            lambda: probes.probe(url) == 200,
            proc,
            "the server",
            timeout,
            lambda: server_log_tails(run),
            not_ready=f"Keystone did not answer GET {url}",
        )
    except services.ServiceError as exc:
        raise LaunchError(str(exc)) from None
