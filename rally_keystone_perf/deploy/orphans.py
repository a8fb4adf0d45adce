"""Runs whose command died: found, described and stopped.

``run``, ``matrix`` and the benchmarks own the servers they start: run.json
records the pid of that command (``driver_pid``). When the command is killed
by SIGKILL (or the machine's OOM killer) its servers and its Rally child are
left running, loading the machine. Such a run is *orphaned*: its driver is
gone and some of its processes still run, or what they ran in (a cluster's
namespaces and bridge, its CPU quota's cgroups). ``down`` and the start of the next
run stop them and say what they stopped. ``up`` (and ``run --keep-running``)
leave their servers running on purpose: they clear ``driver_pid``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from rally_keystone_perf.deploy import services
from rally_keystone_perf.layout.rundir import RunDir, RunState

STATE_FILE = "run.json"
NETNS_DIR = Path("/run/netns")  # where ip netns keeps a namespace's handle
NET_DIR = Path("/sys/class/net")
# run.json files under a runs folder: its runs, and a matrix's (<dir>/runs/*)
PATTERNS = (f"*/{STATE_FILE}", f"*/runs/*/{STATE_FILE}")


def claim(run: RunDir) -> None:
    """Record this process as the one whose end must stop the run's servers."""
    run.write_state(driver_pid=os.getpid())


def detach(run: RunDir) -> None:
    """The servers outlive this command on purpose (``up``, ``--keep-running``)."""
    run.write_state(driver_pid=None)


def leftovers(state: RunState) -> list[str]:
    """What the run made besides processes that is still there: its cluster's
    namespaces and bridge, its CPU quota's cgroups (each as ``kind name``)."""
    found = []
    for net in ((state.cluster or {}).get("network") or {}, state.client_network or {}):
        names = [*(net.get("namespaces") or []), *(net.get("db_namespaces") or [])]
        found += [f"namespace {n}" for n in names if n and (NETNS_DIR / n).exists()]
        bridge = net.get("bridge")
        if bridge and (NET_DIR / bridge).exists():
            found.append(f"bridge {bridge}")
    groups = (state.cpu_quota or {}).get("groups") or {}
    found += [f"cgroup {g}" for g in groups.values() if Path(g).is_dir()]
    return found


def orphaned_by(state: RunState) -> int | None:
    """The dead driver's pid when the run's processes (or namespaces or
    cgroups) outlived it, else None."""
    driver = state.driver_pid
    if not driver or services.alive(int(driver)):
        return None
    return int(driver) if services.running(state) or leftovers(state) else None


def describe(state: RunState) -> str | None:
    """``orphaned: started by pid N, which is gone; stop it with down``."""
    driver = orphaned_by(state)
    if driver is None:
        return None
    return f"orphaned: started by pid {driver}, which is gone; stop it with down"


def find(runs_root: Path) -> list[RunDir]:
    """The orphaned runs under ``runs_root`` (its runs and its matrices' runs)."""
    found = []
    for pattern in PATTERNS:
        for state_file in sorted(runs_root.glob(pattern)):
            run = RunDir(state_file.parent)
            try:
                state = run.state()
            except ValueError:  # a half-written or foreign file: not ours
                continue
            if orphaned_by(state) is not None:
                found.append(run)
    return found


def stop(
    run: RunDir, stop_run: Callable[[RunDir], bool], say: Callable[[str], None]
) -> None:
    """Stop an orphaned run with ``stop_run`` (the launcher's), saying what ran."""
    state = run.state()
    left = services.running(state) + leftovers(state)
    say(
        f"stopping what the dead run {run.root} left (its command, pid "
        f"{state.driver_pid}, is gone): {', '.join(left)}"
    )
    stop_run(run)
    run.write_state(status="stopped", driver_pid=None)


def stop_all(
    runs_root: Path, stop_run: Callable[[RunDir], bool], say: Callable[[str], None]
) -> int:
    """Stop every orphaned run under ``runs_root``; return how many."""
    runs = find(runs_root)
    for run in runs:
        stop(run, stop_run, say)
    return len(runs)
