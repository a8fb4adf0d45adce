"""Faults on a running deployment: kill, stop, start or freeze a host's processes.

A target is a Keystone host, ``node1`` .. ``node8`` (a cluster node: every
process of it, its memcached included, as when a controller dies; on a single
host, ``node1`` is Keystone's processes and its memcached), ``database``
(MariaDB or PostgreSQL; with ``--db galera``, every member) or one Galera
member, ``galera1`` .. ``galera3``. The actions:

- ``kill``: SIGKILL the target's process groups (a host that dies);
- ``stop``: SIGTERM, then SIGKILL after a grace period (a service stopped);
- ``start``: start what is not running again, from run.json's record of how
  it first started (the same argv, cgroup and namespace), and wait until it
  answers (``GET /v3`` on the node, the database's port, a Galera member's
  Synced state; a Galera cluster with no member left is bootstrapped again
  from its first member, as an operator recovers one);
- ``restart``: ``stop`` then ``start``;
- ``freeze`` / ``thaw``: SIGSTOP / SIGCONT (a host that hangs, not dies);
- ``kill-worker``: SIGKILL one worker of the node's Keystone server (its
  master starts another).

Each fault is appended to ``logs/faults.jsonl`` (when, what, the outcome),
for the report to mark. Used by the ``keystone_perf_fault`` Rally hook.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import psutil

from rally_keystone_perf.deploy import modes, probes, services
from rally_keystone_perf.deploy.backends import galera_recovery
from rally_keystone_perf.deploy.sampler import DB_SERVICES
from rally_keystone_perf.layout.names import GALERA_MEMBER
from rally_keystone_perf.layout.rundir import RunDir, RunState

ACTIONS = ("kill", "stop", "start", "restart", "freeze", "thaw", "kill-worker")
DATABASE = "database"
TARGET = re.compile(rf"^(node[1-{modes.MAX_NODES}]|database|galera[1-9])$")
FAULTS_LOG = "faults.jsonl"  # in the run's logs/ folder
RUN_ENV = "KEYSTONE_PERF_RUN"  # the run folder, for the hook in Rally's process
GRACE_SECONDS = 10.0  # stop: SIGTERM, then SIGKILL after this


class FaultError(Exception):
    """The fault cannot be applied to this run; the message says why."""


@dataclass
class Fault:
    """One applied fault: what, on which processes, when, and what happened."""

    action: str
    target: str
    started: float
    finished: float = 0.0
    done: list[str] = field(default_factory=list)  # one line per step
    error: str | None = None


def target_services(state: RunState, target: str) -> list[str]:
    """The run.json service names of ``target``, in their start order.

    :raises FaultError: an unknown target, or one this run does not have.
    """
    if not TARGET.match(target):
        raise FaultError(
            f"unknown target {target!r}: node1 to node8, database or galera1 to 3"
        )
    order = [n for n in state.service_order or [] if n in (state.service_specs or {})]
    if target == DATABASE:
        names = [n for n in order if n in DB_SERVICES or GALERA_MEMBER.fullmatch(n)]
    elif GALERA_MEMBER.fullmatch(target):
        names = [n for n in order if n == target]
    elif state.cluster:
        names = [n for n in order if n.startswith(f"{target}-")]
    elif target == "node1":  # a single host: Keystone's processes, its cache
        mode = modes.get_mode(state.mode or modes.DEFAULT_MODE)
        own = {p.name for p in mode.processes} | {"memcached"}
        names = [n for n in order if n in own]
    else:
        names = []
    if not names:
        raise FaultError(f"this run has no {target} (its services: {', '.join(order)})")
    return names


def apply(run: RunDir, action: str, target: str, timeout: float = 60.0) -> Fault:
    """Apply ``action`` to ``target``; the record (also in logs/faults.jsonl).

    :raises FaultError: unknown action or target (nothing is done then).
    """
    if action not in ACTIONS:
        raise FaultError(f"unknown action {action!r}: {', '.join(ACTIONS)}")
    names = target_services(run.state(), target)
    fault = Fault(action, target, time.time())
    try:
        STEPS[action](run, target, names, fault, timeout)
    except (FaultError, services.ServiceError, OSError, psutil.Error) as exc:
        fault.error = str(exc)
    except (KeyError, IndexError, TypeError, ValueError) as exc:  # an odd run.json
        fault.error = f"run.json does not describe {target} fully: {exc!r}"
    fault.finished = time.time()
    with open(run.logs / FAULTS_LOG, "a") as log:
        log.write(json.dumps(asdict(fault), sort_keys=True) + "\n")
    return fault


def _pids(run: RunDir, names: list[str]) -> list[tuple[str, int]]:
    recorded = run.state().services or {}
    return [(n, int(recorded[n])) for n in names if n in recorded]


def _signal(sig: signal.Signals) -> Callable[..., None]:
    def send(
        run: RunDir, _target: str, names: list[str], fault: Fault, _t: float
    ) -> None:
        for name, pid in reversed(_pids(run, names)):
            if not services.group_alive(pid):
                fault.done.append(f"{name} (pid {pid}) was not running")
                continue
            os.killpg(pid, sig)
            fault.done.append(f"{sig.name} to {name} (pid {pid}) and its group")
            if sig == signal.SIGKILL:  # asynchronous: return once it is dead
                _wait_dead(pid)

    return send


def _wait_dead(pid: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while services.alive(pid) and time.monotonic() < deadline:
        services.reap(pid)  # ours when this process started it
        time.sleep(0.02)


def _stop(run: RunDir, _target: str, names: list[str], fault: Fault, _t: float) -> None:
    for name, pid in reversed(_pids(run, names)):
        ran = services.stop_pid(pid, GRACE_SECONDS)
        fault.done.append(f"stopped {name} (pid {pid})" if ran else f"{name} was down")


def _start(
    run: RunDir, target: str, names: list[str], fault: Fault, timeout: float
) -> None:
    pids = dict(_pids(run, names))
    for name in names:
        if name in pids and services.alive(pids[name]):
            fault.done.append(f"{name} (pid {pids[name]}) was running")
            continue
        extra = galera_recovery.restart_args(run, name)
        proc = services.restart(run, name, extra)
        how = f" ({' '.join(extra)})" if extra else ""
        fault.done.append(f"started {name} (pid {proc.pid}){how}")
        if GALERA_MEMBER.fullmatch(name):  # the next joins a Synced member
            _wait_ready(run, name, fault, timeout)
    if not GALERA_MEMBER.fullmatch(target):  # a member: waited for above
        _wait_ready(run, target, fault, timeout)


def _wait_ready(run: RunDir, target: str, fault: Fault, timeout: float) -> None:
    ready, what = _readiness(run.state(), target)
    started = time.monotonic()
    while not ready():
        if time.monotonic() - started > timeout:
            raise services.ServiceError(
                f"{target} did not answer {what} in {timeout:g} s"
            )
        time.sleep(0.2)
    fault.done.append(
        f"{target} answered {what} after {time.monotonic() - started:.1f} s"
    )


def _restart(
    run: RunDir, target: str, names: list[str], fault: Fault, timeout: float
) -> None:
    _stop(run, target, names, fault, timeout)
    _start(run, target, names, fault, timeout)


def _kill_worker(
    run: RunDir, target: str, names: list[str], fault: Fault, _t: float
) -> None:
    mode = modes.get_mode(run.state().mode or modes.DEFAULT_MODE)
    server = next(p.name for p in mode.processes if p.runs_keystone)
    for name, pid in _pids(run, names):
        if name.split("-", 1)[-1] != server and name != server:
            continue
        workers = sorted(psutil.Process(pid).children(), key=lambda p: p.pid)
        if not workers:
            raise FaultError(f"{name} (pid {pid}) has no worker to kill")
        workers[0].send_signal(signal.SIGKILL)
        fault.done.append(f"SIGKILL to {name}'s worker pid {workers[0].pid}")
        return
    raise FaultError(f"{target} runs no {server} server")


def _readiness(state: RunState, target: str) -> tuple[Callable[[], bool], str]:
    """A check that ``target`` serves again, and its words."""
    if GALERA_MEMBER.fullmatch(target):
        return galera_recovery.readiness(state, target)
    if target == DATABASE:
        host = state.options.get("host", "127.0.0.1")
        if state.cluster:
            host = state.cluster["network"]["shared_address"]
        port = int(state.db_port or 0)
        return (lambda: probes.port_open(host, port)), f"on {host}:{port}"
    url = f"{state.url}/v3"
    if state.cluster:
        index = int(target.removeprefix("node")) - 1
        address = state.cluster["network"]["node_addresses"][index]
        url = f"http://{address}:{state.cluster['ports'][index]}/v3"
    return (lambda: probes.probe(url) == 200), f"GET {url}"


STEPS: dict[str, Callable[[RunDir, str, list[str], Fault, float], None]] = {
    "kill": _signal(signal.SIGKILL),
    "stop": _stop,
    "start": _start,
    "restart": _restart,
    "freeze": _signal(signal.SIGSTOP),
    "thaw": _signal(signal.SIGCONT),
    "kill-worker": _kill_worker,
}
