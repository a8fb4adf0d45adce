"""``--db galera``: Keystone's database a 3-member Galera cluster behind haproxy.

The bundled galera fault task, on a shorter clock, on 2 Keystone nodes: the
active member is killed under load and started again; haproxy moves the database's
connections to a backup, the member rejoins and is Synced, failures only
in the failover window; nothing left running, no namespace left.
"""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from rally_keystone_perf.deploy import launcher, modes, preflight
from rally_keystone_perf.deploy.backends import galera, galera_recovery
from rally_keystone_perf.deploy.cluster import network
from tests.functional.conftest import retimed_task, run_bundled_task, run_processes

# alone on the machine: a failover window in seconds; network namespaces
pytestmark = [pytest.mark.functional, pytest.mark.serial]


def _sessions(stats_socket: Path) -> dict[str, int]:
    """haproxy's total sessions per server (``show stat``'s ``stot``)."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(stats_socket))
        sock.sendall(b"show stat\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    header, *rows = data.decode().splitlines()
    columns = header.lstrip("# ").split(",")
    found = {}
    for row in rows:
        cells = dict(zip(columns, row.split(","), strict=False))
        if cells.get("svname", "").startswith("galera"):
            found[cells["svname"]] = int(cells["stot"] or 0)
    return found


def _namespaces() -> str:
    return subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True
    ).stdout


def test_the_active_member_killed_and_restarted(tmp_path: Path, capsys) -> None:
    options = ["--nodes", "2", "--db", "galera"]
    # on a shorter clock than the bundled 60 s (CI's time): the kill at 10 s,
    # the start at 25 s, failures allowed at 10-25 s (haproxy's 10 s to take
    # the member out), 45 s of load (the rejoin within it)
    name = "cluster-galera-fault.json"
    task = retimed_task(name, tmp_path, 45, [10, 25], [10, 25])
    code, run = run_bundled_task(name, options, tmp_path / "runs", task)
    out = capsys.readouterr().out
    state = run.state()
    net = network.Network.from_json(state.cluster["network"])
    try:
        assert code == 0  # the failure_window SLA: failures only at 10-25 s
        faults = [json.loads(line) for line in (run.logs / "faults.jsonl").open()]
        assert [(f["action"], f["target"], f["error"]) for f in faults] == [
            ("kill", "galera1", None),
            ("start", "galera1", None),
        ]
        assert "galera1 answered Synced" in faults[1]["done"][-1]
        mariadbd = preflight.find_executable(modes.MARIADB)
        sockets = Path(state.sockets_dir)
        for member in galera_recovery.recorded_members(
            state
        ).values():  # one cluster again
            status = galera.status(member, sockets, mariadbd)
            assert status["wsrep_cluster_size"] == "3", member.name
            assert status["wsrep_local_state_comment"] == "Synced", member.name
        sessions = _sessions(sockets / "haproxy-galera.sock")
        assert sessions["galera2"] > 0, sessions  # the backup took over
        assert sessions["galera3"] == 0, sessions  # only the first backup
        # the report has a row per member
        rows = [line.split("|")[1].strip() for line in out.splitlines() if "|" in line]
        assert {"galera1", "galera2", "galera3", "haproxy-galera"} <= set(rows)
    finally:
        launcher.stop(run)
    assert not run_processes(run), "server processes were left running"
    for name in [*net.namespaces, *net.db_namespaces]:
        assert name is None or name not in _namespaces()
