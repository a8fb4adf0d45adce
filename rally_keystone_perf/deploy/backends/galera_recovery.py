"""Starting a Galera member again after a fault, as Debian's mariadb unit does.

A member killed mid-run left ``seqno: -1`` in its ``grastate.dat``: without
its position it would ask for a full state transfer (rsync: the donor is
locked for writes meanwhile). Before each start the member's position is
recovered from InnoDB (``mariadbd --wsrep-recover``, what Debian's
``galera_recovery`` runs before every start) and given to it
(``--wsrep-start-position``), so that it rejoins with an incremental
transfer (IST) from a survivor. With no member left, the first restarted
bootstraps the cluster again (``--wsrep-new-cluster`` after
``safe_to_bootstrap: 1``, as an operator recovering a cluster does).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from rally_keystone_perf.deploy import logtail, modes, preflight, services
from rally_keystone_perf.deploy.backends import galera
from rally_keystone_perf.layout.names import GALERA_MEMBER
from rally_keystone_perf.layout.rundir import RunDir, RunState

RECOVERED = re.compile(r"WSREP: Recovered position: ([0-9a-f-]{36}:\d+)")
RECOVER_TIMEOUT = 120.0


def recorded_members(state: RunState) -> dict[str, galera.Member]:
    """run.json's members (``cluster.galera``), by name."""
    return {
        m["name"]: galera.Member(m["name"], m["address"], dict(m["ports"]), ())
        for m in (state.cluster or {}).get("galera") or []
    }


def restart_args(run: RunDir, name: str) -> list[str]:
    """What a start of ``name`` adds to its recorded (joining) command: its
    recovered position, and ``--wsrep-new-cluster`` when no other member
    runs. Nothing for a service that is not a Galera member."""
    if not GALERA_MEMBER.fullmatch(name):
        return []
    state = run.state()
    galera.give_to_sst(run.db / name)  # files mariadbd made since, too
    extra = []
    position = recover_position(run, name)
    if position is not None:
        extra.append(f"--wsrep-start-position={position}")
    others = [
        int(pid)
        for other, pid in (state.services or {}).items()
        if GALERA_MEMBER.fullmatch(other) and other != name
    ]
    if not any(services.alive(pid) for pid in others):
        _safe_to_bootstrap(run, name)
        extra.append("--wsrep-new-cluster")
    return extra


def recover_position(run: RunDir, name: str) -> str | None:
    """``uuid:seqno`` from ``mariadbd --wsrep-recover`` with the member's own
    command (its namespace and cgroup, its log in ``logs/<name>-recover.log``);
    None when InnoDB has none (the member then takes a full transfer)."""
    spec = (run.state().service_specs or {}).get(name)
    if spec is None:
        return None
    log = run.logs / f"{name}-recover.log"
    log.unlink(missing_ok=True)
    argv = [a for a in spec["argv"] if not a.startswith("--log-error=")]
    argv += [f"--log-error={log}", "--wsrep-recover"]
    try:
        subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=RECOVER_TIMEOUT,
            cwd=run.root,
        )
    except subprocess.TimeoutExpired:
        return None
    found = RECOVERED.findall(log.read_text(errors="replace")) if log.exists() else []
    return found[-1] if found else None


def _safe_to_bootstrap(run: RunDir, name: str) -> None:
    """Mark the member's state one to bootstrap from (a member killed with
    the others may lack its last second of commits:
    innodb_flush_log_at_trx_commit=0)."""
    grastate = run.db / name / "grastate.dat"
    if grastate.is_file():
        text = grastate.read_text()
        grastate.write_text(
            text.replace("safe_to_bootstrap: 0", "safe_to_bootstrap: 1")
        )


def readiness(state: RunState, name: str) -> tuple[Callable[[], bool], str]:
    """A check that member ``name`` is Synced again, and its words; the
    check raises ServiceError (with its log's tail) once the member exits."""
    member = recorded_members(state).get(name)
    pid = (state.services or {}).get(name)
    if member is None or pid is None:
        raise services.ServiceError(f"run.json does not describe {name}")
    sockets = Path(state.sockets_dir or "")
    mariadbd = preflight.find_executable(modes.MARIADB)
    log = (state.run.logs if state.run else Path(".")) / f"{name}.log"

    def synced() -> bool:
        found = galera.status(member, sockets, mariadbd)
        if found.get("wsrep_local_state_comment") == galera.SYNCED:
            return True
        if not services.alive(int(pid)):
            raise services.ServiceError(
                f"{name} exited before it was {galera.SYNCED}; last lines of "
                f"its log:\n{logtail.named_tail(log)}"
            )
        return False

    return synced, f"{galera.SYNCED} on {member.address}:{member.ports['mysql']}"
